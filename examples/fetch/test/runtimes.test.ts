/**
 * examples/fetch for real on Bun and Deno, through `pnpm start bun|deno`'s own commands, on the
 * pinned binaries scripts/runtimes.mjs installs from npm on first use. Apart from that install,
 * nothing is downloaded: Deno runs with `--no-remote` from node_modules, with its update check off.
 */
import { spawnSync } from "node:child_process";
import { beforeAll, expect } from "vitest";
import { describeDemoContract } from "../../shared/test/demo-contract-suite.js";
import { repositoryRoot } from "../../shared/test/run-example.js";

// Before any server starts: a first-use download must not count against the start-up timeout.
beforeAll(() => {
  const result = spawnSync(process.execPath, ["scripts/runtimes.mjs", "bun", "deno"], {
    cwd: repositoryRoot,
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
}, 300_000);

const log = (runtime: string) => (ms: number) =>
  console.log(`examples/fetch on ${runtime}: banner after ${ms} ms`);

describeDemoContract("examples/fetch on Bun", "bun", { onStarted: log("Bun") });
describeDemoContract("examples/fetch on Deno", "deno", { onStarted: log("Deno") });
