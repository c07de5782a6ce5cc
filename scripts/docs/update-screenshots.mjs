/**
 * `pnpm docs:screenshots`: runs the two browser tests that take the screenshots of docs/ui.md with
 * KEYWARD_UPDATE_SCREENSHOTS=1, so that they write into docs/images (a test run writes them into a
 * temporary folder and leaves the tracked images alone). Review the images, then commit them.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const result = spawnSync(
  process.execPath,
  [
    path.join(root, "node_modules/vitest/vitest.mjs"),
    "run",
    "packages/ui/test/keyward-keys.browser.test.ts",
    "packages/ui/test/key-lifecycle.browser.test.ts",
  ],
  { cwd: root, stdio: "inherit", env: { ...process.env, KEYWARD_UPDATE_SCREENSHOTS: "1" } },
);
process.exit(result.status ?? 1);
