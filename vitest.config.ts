import { availableParallelism, loadavg } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * How much more time than on an idle machine a test, a hook and a wait on an outcome get: the
 * load per core when the run starts (1 on an idle machine, at most 6), or KEYWARD_TEST_TIME_SCALE.
 * These limits only end a test that hangs; no test asserts on elapsed time here (that is the
 * timing project's job), so a busy machine must stretch them, not fail them.
 */
const timeScale =
  Number(process.env.KEYWARD_TEST_TIME_SCALE) ||
  Math.min(6, Math.max(1, (loadavg()[0] ?? 0) / availableParallelism()));
const scaled = (ms: number) => Math.round(ms * timeScale);

// Tests run against source: the "@keyward/source" export condition maps every
// @keyward/* import to its src/index.ts, so no build is needed before testing.
export default defineConfig({
  resolve: { conditions: ["@keyward/source"] },
  ssr: { resolve: { conditions: ["@keyward/source"] } },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "examples/*/test/**/*.test.ts",
      "scripts/**/*.test.ts",
    ],
    // Assertions on elapsed time live in *.timing.test.ts, run by vitest.timing.config.ts (one
    // file at a time, with a retry) after this suite: on a loaded two-core machine a latency bound
    // says more about the neighbours than about the code.
    exclude: [...configDefaults.exclude, "**/*.timing.test.ts"],
    // Most test files wait (on PostgreSQL, Redis, a child process, a browser) far more than they
    // compute, and vitest's default of one worker per core minus one is a single worker on a
    // two-core CI machine: files then wait one after another. Three at least keep both cores busy;
    // the assertions that a busy machine could break are in the timing project, run alone.
    maxWorkers: Math.max(availableParallelism() - 1, 3),
    testTimeout: scaled(20_000),
    hookTimeout: scaled(60_000),
    // expect.poll waits for something another process does (a browser's focus move, a server's
    // answer). Its default second is too short on a loaded two-core CI machine; a test still
    // fails, only later, when the thing never happens.
    expect: { poll: { timeout: scaled(10_000) } },
  },
});
