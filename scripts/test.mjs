/**
 * `pnpm test`: the unit suite, then the timing project, both whatever the first one did, and a
 * failure if either failed. One flaky unit test must not hide what the timing project says.
 */
import { spawnSync } from "node:child_process";

const steps = [
  ["unit", ["test:unit"]],
  ["timing", ["test:timing"]],
];
const failed = [];
for (const [name, args] of steps) {
  // The pnpm that runs this script (npm_execpath), so `npx pnpm@10 test` stays on pnpm 10.
  const pnpm = process.env.npm_execpath;
  const result = pnpm
    ? spawnSync(process.execPath, [pnpm, ...args], { stdio: "inherit" })
    : spawnSync("pnpm", args, { stdio: "inherit", shell: process.platform === "win32" });
  if (result.status !== 0) failed.push(name);
}
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.join(" and ")} tests.`);
  process.exit(1);
}
