/**
 * `pg`, `@keyward/postgres` and `tsx` are optional peer dependencies: a Redis-only host whose
 * application is JavaScript installs none of them. The executable is run from a folder outside the
 * workspace, where Node finds none of them (nor anything else the release build leaves external),
 * so these are the failures such a host meets: a command that needs no missing package works, and
 * one that needs one names it and how to install it, with exit 1 and nothing done.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtBin, type CliResult } from "./run-cli.js";

let folder: string;
let bin: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "keyward-cli-alone-"));
  bin = path.join(folder, "keyward.js");
  copyFileSync(await builtBin(), bin);
});

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** `keyward ...args` with only `env` of the database variables, in the folder outside the workspace. */
function runAlone(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !["DATABASE_URL", "REDIS_URL", "KEYWARD_APP", "NODE_PATH"].includes(name),
    ),
  );
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: folder, env: { ...inherited, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

describe("the CLI without its optional packages", () => {
  it("runs a command that needs none of them: migrate on Redis only", async () => {
    const result = await runAlone(["migrate"], { REDIS_URL: "redis://127.0.0.1:6379" });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Redis needs no migrations");
  });

  it("migrate on PostgreSQL names pg and @keyward/postgres", async () => {
    const result = await runAlone(["migrate"], {
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/test",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "keyward migrate on PostgreSQL (DATABASE_URL) needs the package pg, which is not installed: npm install pg @keyward/postgres",
    );
    expect(result.stdout).toBe("");
  });

  it("a TypeScript application module names tsx", async () => {
    const app = path.join(folder, "keyward-app.ts");
    writeFileSync(app, "export default {} as unknown;\n");
    const result = await runAlone(["--app", app, "keys", "list", "--owner", "user_1"], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "a TypeScript --app module (or build it to JavaScript) needs the package tsx, which is not installed: npm install tsx",
    );
  });

  it("import better-auth names pg", async () => {
    // No real instance can load here (@keyward/core is not installed in this folder either), and
    // the source is read before the instance is used: the instance's shape is enough.
    const app = path.join(folder, "keyward-app.mjs");
    writeFileSync(
      app,
      "export default { keys: { create() {}, get() {} }, imports: {}, close: async () => {} };\n",
    );
    const result = await runAlone(
      [
        "--app",
        app,
        "import",
        "better-auth",
        "--from",
        "postgresql://postgres@127.0.0.1:5432/test",
        "--tier",
        "free",
      ],
      {},
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "keyward import better-auth needs the package pg, which is not installed: npm install pg",
    );
  });
});
