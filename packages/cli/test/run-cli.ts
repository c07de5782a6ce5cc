/**
 * Runs the `keyward` executable as a user's shell would: a real child process, its exit code, both
 * output streams, and how long it took. The executable is bundled from the package's source once
 * per test file (as the release build bundles it, drivers and tsx left external), because starting
 * Node with a TypeScript loader for every command would take seconds each on a busy machine. The
 * application module it loads (`--app`) is TypeScript, loaded by the CLI's own tsx; Node runs with
 * the `@keyward/source` condition, so that module's `@keyward/*` imports reach the workspace's
 * source, as the examples' `start` scripts do.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "tsup";
import { afterAll } from "vitest";

export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

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
      external: ["pg", "tsx"],
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

/** The `--app` module of these tests (see `application.ts`). */
export const testApp = path.join(packageRoot, "test", "fixtures", "app.ts");

/**
 * Runs `keyward ...args` with only the given variables of the CLI's (none of DATABASE_URL,
 * REDIS_URL, KEYWARD_APP and the test application's inherited from this process), in `cwd`
 * (default the package's folder). A process still running after 30 s is killed: code -1.
 */
export async function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  cwd = packageRoot,
): Promise<CliResult> {
  const bin = await builtBin();
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !["DATABASE_URL", "REDIS_URL", "KEYWARD_APP"].includes(name) &&
        !name.startsWith("KEYWARD_TEST_"),
    ),
  );
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=@keyward/source", bin, ...args],
      { cwd, env: { ...inherited, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

/** A port on 127.0.0.1 that nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
