import { configDefaults, defineConfig } from "vitest/config";
import unit from "./vitest.config.js";

// The timing project: assertions on elapsed time and latency (p99 bounds, "within the deadline
// plus a margin", "at once"), kept out of the unit suite. The unit suite asserts the same
// requirements without the clock (fake timers, outcomes); these files check that the real thing
// is also fast. One file at a time, so that they do not measure each other; `pnpm test:timing`
// gives a test one retry, for a machine that was busy at the wrong moment.
export default defineConfig({
  ...unit,
  test: {
    ...unit.test,
    include: [
      "packages/*/src/**/*.timing.test.ts",
      "packages/*/test/**/*.timing.test.ts",
      "examples/*/test/**/*.timing.test.ts",
      "scripts/**/*.timing.test.ts",
    ],
    exclude: configDefaults.exclude,
    fileParallelism: false,
  },
});
