/**
 * The README's quick start runs as printed, today and years from now: it must not carry a date
 * that will one day be in the past (`expiresAt` in the past is refused). The snippet is run with
 * the clock set five years ahead.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { codeBlocks, repositoryRoot } from "./code-blocks.js";

const quickStart = codeBlocks("README.md").find(
  (block) => block.language === "ts" && block.code.includes("keyward.keys.create"),
);

describe("README quick start", () => {
  let directory: string | undefined;
  afterEach(() => {
    vi.useRealTimers();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it("runs, five years from now", async () => {
    expect(quickStart).toBeDefined();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(Date.now() + 5 * 365 * 86_400_000));
    directory = mkdtempSync(path.join(repositoryRoot, "scripts/docs/.readme-"));
    const file = path.join(directory, "quick-start.ts");
    const core = pathToFileURL(path.join(repositoryRoot, "packages/core/src/index.ts")).href;
    writeFileSync(
      file,
      quickStart!.code.replace('from "@keyward/core"', `from ${JSON.stringify(core)}`),
    );
    const printed = vi.spyOn(console, "log").mockImplementation(() => {});
    await import(pathToFileURL(file).href);
    expect(printed).toHaveBeenCalledWith(expect.stringMatching(/^sk_live_/));
  });
});
