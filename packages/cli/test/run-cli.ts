/**
 * Runs the `keyward` executable as a user's shell would: a real child process, its exit code, both
 * output streams, and how long it took. The executable is bundled from the package's source once
 * per test file (as the release build bundles it, drivers left external), because starting Node
 * with a TypeScript loader for every command would take seconds each on a busy machine.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "tsup";
import { afterAll } from "vitest";

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

let built: Promise<string> | undefined;
let builtDirectory: string | undefined;

afterAll(() => {
  if (builtDirectory) rmSync(builtDirectory, { recursive: true, force: true });
});

/** Bundles src/bin.ts with the workspace's source under .cache/ (inside the package, so `pg` and
 * `ioredis` resolve from its node_modules) and returns the file's path. */
function builtBin(): Promise<string> {
  built ??= (async () => {
    const cache = path.join(packageRoot, ".cache");
    mkdirSync(cache, { recursive: true });
    const outDir = mkdtempSync(path.join(cache, "bin-"));
    builtDirectory = outDir;
    await build({
      entry: { keyward: path.join(packageRoot, "src", "bin.ts") },
      outDir,
      format: ["esm"],
      platform: "node",
      target: "node20",
      noExternal: [/^@keyward\//],
      external: ["pg", "ioredis"],
      dts: false,
      silent: true,
      config: false,
      esbuildOptions(options) {
        options.conditions = ["@keyward/source"];
      },
    });
    return path.join(outDir, "keyward.js");
  })();
  return built;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall-clock milliseconds, process start to exit. */
  ms: number;
}

/** Runs `keyward ...args` with only the given store variables (none inherited from this process). */
export async function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const bin = await builtBin();
  const {
    DATABASE_URL: _d,
    REDIS_URL: _r,
    KEYWARD_CONFIG: _c,
    KEYWARD_PEPPER: _p,
    ...inherited
  } = process.env;
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: packageRoot, env: { ...inherited, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

/** Writes a configuration file (JSON) and returns its path. */
export function writeConfig(config: unknown): string {
  const directory = mkdtempSync(path.join(tmpdir(), "keyward-cli-"));
  const file = path.join(directory, "keyward.config.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}
