/**
 * The TypeScript snippets of docs/redis.md and docs/postgres.md compile against the packages'
 * source and the drivers' own types. Each block becomes a module of its own; what the page takes
 * from its earlier blocks or from the reader's application (`pool`, `scopes`, `tiers`, `jwt`, the
 * usual imports) is supplied by a prelude, only when the block uses the name without defining it.
 * The files are written inside the package whose drivers they import, so they resolve as a
 * reader's would.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { codeBlocks, repositoryRoot } from "./code-blocks.js";

/** Names a page uses as known, and where they come from. */
const given: Record<string, string> = {
  pg: 'import pg from "pg";',
  Redis: 'import { Redis } from "ioredis";',
  createKeyward: 'import { createKeyward } from "@keyward/core";',
  memoryRateLimitStore: 'import { memoryRateLimitStore } from "@keyward/core";',
  postgresStore: 'import { postgresStore } from "@keyward/postgres";',
  pool: 'declare const pool: import("pg").Pool;',
  scopes: 'declare const scopes: import("@keyward/core").KeywardConfig["scopes"];',
  tiers: 'declare const tiers: import("@keyward/core").KeywardConfig["tiers"];',
  jwt: 'declare const jwt: import("@keyward/core").KeywardConfig["jwt"];',
};

/** Drivers the docs mention that are not installed in this repository. */
const notInstalled = ["@neondatabase/serverless"];

function prelude(code: string): string {
  return Object.entries(given)
    .filter(([name]) => new RegExp(`\\b${name}\\b`).test(code))
    .filter(
      ([name]) =>
        !new RegExp(`import[^;]*\\b${name}\\b[^;]*from`).test(code) &&
        !new RegExp(`\\b(const|let|function|class)\\s+${name}\\b`).test(code),
    )
    .map(([, line]) => line)
    .join("\n");
}

const pages = ["docs/redis.md", "docs/postgres.md"];

/** Each driver from the package that depends on it, as a reader's project would have it. */
const drivers = {
  ioredis: "packages/redis",
  redis: "packages/redis",
  pg: "packages/postgres",
  postgres: "packages/postgres",
  "@electric-sql/pglite": "packages/postgres",
};

let directory: string | undefined;
afterAll(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe("the TypeScript snippets of docs/redis.md and docs/postgres.md", () => {
  it("compile", () => {
    directory = mkdtempSync(path.join(repositoryRoot, "scripts/docs/.doc-snippets-"));
    const files = pages.flatMap((page) => {
      const blocks = codeBlocks(page).filter(
        (block) =>
          block.language === "ts" && !notInstalled.some((name) => block.code.includes(`"${name}"`)),
      );
      expect(blocks.length).toBeGreaterThan(0);
      return blocks.map((block) => {
        const file = path.join(directory!, `${path.basename(page, ".md")}-line-${block.line}.ts`);
        writeFileSync(file, `${prelude(block.code)}\n${block.code}\nexport {};\n`);
        return file;
      });
    });
    const base = ts.readConfigFile(
      path.join(repositoryRoot, "tsconfig.base.json"),
      ts.sys.readFile,
    );
    const { options } = ts.parseJsonConfigFileContent(
      {
        compilerOptions: {
          ...base.config.compilerOptions,
          noEmit: true,
          declaration: false,
          paths: {
            "@keyward/*": [path.join(repositoryRoot, "packages/*/src/index.ts")],
            ...Object.fromEntries(
              Object.entries(drivers).map(([name, owner]) => [
                name,
                // `pg` ships no types: its @types package stands in, as in a reader's project.
                [
                  path.join(
                    repositoryRoot,
                    owner,
                    "node_modules",
                    name === "pg" ? "@types/pg" : name,
                  ),
                ],
              ]),
            ),
          },
        },
      },
      ts.sys,
      directory,
    );
    const program = ts.createProgram(files, options);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter(
        (diagnostic) => diagnostic.file && files.includes(path.resolve(diagnostic.file.fileName)),
      )
      .map((diagnostic) => {
        const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const block = path.basename(diagnostic.file!.fileName, ".ts");
        return `${block} (+${line + 1} with the prelude): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
      });
    expect(problems).toEqual([]);
  }, 60_000);
});
