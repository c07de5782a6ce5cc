/**
 * The package-contents rules (package-contents.mjs) on the tarball of @keyward/core as pnpm packs
 * it, when it is built, and on made-up file lists that break each rule.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../docs/code-blocks.js";
import { contentsProblems, tarballFiles } from "./package-contents.mjs";

const file = (filePath: string, content: unknown = "") => {
  const text = typeof content === "string" ? content : JSON.stringify(content);
  return { path: filePath, size: Buffer.byteLength(text), content: Buffer.from(text) };
};

describe("what a package ships", () => {
  it("refuses tests, maps with a copy of the source or pointing outside, and too many bytes", () => {
    const clean = [
      file("package.json", "{}"),
      file("src/a.ts", "export const a = 1;"),
      file("dist/a.js", "export const a = 1;"),
      file("dist/a.js.map", { version: 3, sources: ["../src/a.ts"], mappings: "" }),
      file("dist/a.d.ts.map", { version: 3, sources: ["../src/a.ts"], mappings: "" }),
    ];
    expect(contentsProblems("@keyward/x", clean).problems).toEqual([]);
    const broken = [
      ...clean,
      file("src/a.test.ts"),
      file("dist/b.js.map", { version: 3, sources: ["../src/a.ts"], sourcesContent: ["x"] }),
      file("dist/c.d.ts.map", { version: 3, sources: ["../src/gone.ts"] }),
      file("dist/big.js", "x".repeat(600_001)),
    ];
    expect(contentsProblems("@keyward/x", broken).problems).toEqual([
      "@keyward/x: ships a test, src/a.test.ts",
      "@keyward/x: dist/b.js.map carries a copy of its sources (sourcesContent)",
      "@keyward/x: dist/c.d.ts.map points to ../src/gone.ts, which is not in the tarball",
      expect.stringMatching(/^@keyward\/x: 600,\d{3} bytes unpacked, over its budget of 600,000$/),
    ]);
  });

  it.runIf(existsSync(path.join(repositoryRoot, "packages/core/dist/index.js")))(
    "@keyward/core, packed by pnpm from its build, passes them",
    () => {
      const destination = mkdtempSync(path.join(tmpdir(), "keyward-contents-"));
      // pnpm packs as the release does (scripts/release/pack.mjs).
      execFileSync("npx", ["-y", "pnpm@10", "pack", "--pack-destination", destination], {
        cwd: path.join(repositoryRoot, "packages/core"),
        env: { ...process.env, npm_config_yes: "true" },
        stdio: "ignore",
      });
      const [tarball] = readdirSync(destination).filter((name) => name.endsWith(".tgz"));
      const files = tarballFiles(readFileSync(path.join(destination, tarball!)));
      expect(files.some((entry) => entry.path === "dist/index.d.ts.map")).toBe(true);
      expect(contentsProblems("@keyward/core", files).problems).toEqual([]);
    },
  );
});
