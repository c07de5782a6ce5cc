/**
 * The Next.js guide's `lib/keyward.ts`, as printed: `next build` imports every route module with no
 * JWT_SECRET set (CI, Vercel's build step), so importing it must not create Keyward; the first
 * request does, and only then is a missing secret an error, with a message naming it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { codeBlocks, repositoryRoot } from "./code-blocks.js";

const libKeyward = codeBlocks("docs/getting-started-nextjs.md").find(
  (block) => block.language === "ts" && block.code.startsWith("// lib/keyward.ts"),
);

describe("the Next.js guide's lib/keyward.ts", () => {
  let directory: string | undefined;
  const saved = process.env.JWT_SECRET;
  afterEach(() => {
    if (saved === undefined) delete process.env.JWT_SECRET;
    else process.env.JWT_SECRET = saved;
    delete (globalThis as { keyward?: unknown }).keyward;
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  async function load() {
    expect(libKeyward, "the guide has a lib/keyward.ts block").toBeDefined();
    directory = mkdtempSync(path.join(repositoryRoot, "scripts/docs/.nextjs-"));
    const file = path.join(directory, "keyward.ts");
    const core = pathToFileURL(path.join(repositoryRoot, "packages/core/src/index.ts")).href;
    writeFileSync(
      file,
      libKeyward!.code.replace('from "@keyward/core"', `from ${JSON.stringify(core)}`),
    );
    return (await import(pathToFileURL(file).href)) as { getKeyward(): { basePath: string } };
  }

  it("imports without JWT_SECRET (as next build does) and fails clearly on first use", async () => {
    delete process.env.JWT_SECRET;
    const module = await load();
    expect(() => module.getKeyward()).toThrow(
      /jwt\.secret is undefined: is its environment variable set\?/,
    );
  });

  it("creates one instance on first use once the secret is set", async () => {
    process.env.JWT_SECRET = "nextjs-guide-secret-of-at-least-32-bytes";
    const module = await load();
    expect(module.getKeyward()).toBe(module.getKeyward());
    expect(module.getKeyward().basePath).toBe("/api/v1/api-keys");
  });
});
