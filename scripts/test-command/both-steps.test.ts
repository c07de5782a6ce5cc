/**
 * `pnpm test` (scripts/test.mjs) runs the timing project even when the unit suite failed, and
 * fails when either failed. The steps are run by a stand-in for pnpm (named by `npm_execpath`, as
 * pnpm names itself to the scripts it runs) that records each step and fails the ones it is told.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../docs/code-blocks.js";

function runTestCommand(failing: string[]) {
  const folder = mkdtempSync(path.join(tmpdir(), "keyward-test-command-"));
  const log = path.join(folder, "steps.log");
  const standIn = path.join(folder, "pnpm.mjs");
  writeFileSync(
    standIn,
    `import { appendFileSync } from "node:fs";
const step = process.argv[2];
appendFileSync(${JSON.stringify(log)}, step + "\\n");
process.exit(${JSON.stringify(failing)}.includes(step) ? 1 : 0);
`,
  );
  const result = spawnSync(process.execPath, [path.join(repositoryRoot, "scripts/test.mjs")], {
    env: { ...process.env, npm_execpath: standIn },
    encoding: "utf8",
  });
  return { status: result.status, steps: readFileSync(log, "utf8").trim().split("\n") };
}

describe("pnpm test", () => {
  it("runs the timing project after a failed unit suite, and fails", () => {
    expect(runTestCommand(["test:unit"])).toEqual({
      status: 1,
      steps: ["test:unit", "test:timing"],
    });
  });

  it("fails when only the timing project failed", () => {
    expect(runTestCommand(["test:timing"]).status).toBe(1);
  });

  it("passes when both passed", () => {
    expect(runTestCommand([])).toEqual({ status: 0, steps: ["test:unit", "test:timing"] });
  });
});
