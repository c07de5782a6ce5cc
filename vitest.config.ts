import { defineConfig } from "vitest/config";

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
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
