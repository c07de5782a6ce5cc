/**
 * examples/fetch for real on Bun and Deno, from the binaries pnpm installed (examples/fetch's
 * devDependencies `bun` and `deno`), through `pnpm start bun|deno`'s own commands. Nothing is
 * downloaded: Deno runs with `--no-remote` from node_modules, with its update check off.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { describeDemoContract } from "../../shared/test/demo-contract-suite.js";
import { exampleEnvironment, repositoryRoot } from "../../shared/test/run-example.js";

const log = (runtime: string) => (ms: number) =>
  console.log(`examples/fetch on ${runtime}: banner after ${ms} ms`);

describeDemoContract("examples/fetch on Bun", "bun", { onStarted: log("Bun") });
describeDemoContract("examples/fetch on Deno", "deno", { onStarted: log("Deno") });

describe("the CI script .ci/e2e-runtimes.sh", () => {
  it("passes on Bun and Deno", () => {
    const result = spawnSync("bash", [".ci/e2e-runtimes.sh"], {
      cwd: repositoryRoot,
      encoding: "utf8",
      env: exampleEnvironment(),
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain("bun: passed");
    expect(result.stdout).toContain("deno: passed");
  }, 120_000);
});
