import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

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
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // expect.poll waits for something another process does (a browser's focus move, a server's
    // answer). Its default second is too short on a loaded two-core CI machine; a test still
    // fails, only later, when the thing never happens.
    expect: { poll: { timeout: 10_000 } },
  },
});
