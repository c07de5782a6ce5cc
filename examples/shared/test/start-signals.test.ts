/**
 * Ctrl+C on `pnpm start`: the terminal sends SIGINT to the whole foreground process group (the
 * package manager, scripts/start.mjs and whatever sits between them). The example must stop
 * cleanly and the command must not be reported as failed (`ELIFECYCLE Command failed`).
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { walkthroughEnd } from "../src/banner.js";
import { exampleEnvironment, repositoryRoot } from "./run-example.js";

/** Spawns `command` in a process group of its own, as a terminal runs a foreground job. */
async function interruptAfterBanner(command: string, args: string[], signal: NodeJS.Signals) {
  const child = spawn(command, args, {
    cwd: repositoryRoot,
    env: { ...exampleEnvironment(), npm_config_yes: "true" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const collect = (chunk: string) => {
    output += chunk;
    if (output.includes(walkthroughEnd)) process.kill(-child.pid!, signal);
  };
  child.stdout.setEncoding("utf8").on("data", collect);
  child.stderr.setEncoding("utf8").on("data", collect);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output };
}

describe("stopping `pnpm start`", () => {
  it.each(["SIGINT", "SIGTERM"] as const)(
    "scripts/start.mjs on %s: stops the example and exits 0",
    async (signal) => {
      const { code, output } = await interruptAfterBanner(
        process.execPath,
        ["scripts/start.mjs"],
        signal,
      );
      expect(output).toContain(walkthroughEnd);
      expect(code).toBe(0);
    },
    60_000,
  );

  it("Ctrl+C on `pnpm start` through the package manager: no ELIFECYCLE", async () => {
    // The signal goes to the whole group, as a terminal's Ctrl+C does. npx's own shell may still
    // end with 130; what matters here is what pnpm reports about the script.
    const { output } = await interruptAfterBanner("npx", ["-y", "pnpm@10", "start"], "SIGINT");
    expect(output).toContain(walkthroughEnd);
    expect(output).not.toContain("ELIFECYCLE");
  }, 120_000);
});
