/**
 * Runs the `keyward` executable as a user's shell would: a real child process, its exit code, both
 * output streams, and how long it took. The executable is bundled from the package's source once
 * per test file (as the release build bundles it, drivers and tsx left external), and so is the
 * test application it loads (`testApp`, from `fixtures/app.ts`): a JavaScript application module
 * as a user's built app is, with its own copy of Keyward. Loading the TypeScript fixture through the
 * CLI's tsx, with the workspace's source behind it, took about 0.8 s a command against 0.25 s; the
 * TypeScript path is tested where it is the subject (`example-app.test.ts`, the failure tests'
 * fixtures). Node runs with the `@keyward/source` condition, so that a TypeScript module's
 * `@keyward/*` imports reach the workspace's source, as the examples' `start` scripts do.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "tsup";
import { afterAll } from "vitest";

export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const bundleDirectory = (() => {
  const cache = path.join(packageRoot, ".cache");
  mkdirSync(cache, { recursive: true });
  return mkdtempSync(path.join(cache, "bin-"));
})();
let built: Promise<string> | undefined;

afterAll(() => {
  rmSync(bundleDirectory, { recursive: true, force: true });
});

/**
 * Bundles src/bin.ts and the test application with the workspace's source, under .cache/ (inside
 * the package, so `pg` and `ioredis` resolve from its node_modules), each with its own copy of
 * Keyward (no shared chunk), and returns the executable's path.
 */
export function builtBin(): Promise<string> {
  built ??= (async () => {
    await build({
      entry: {
        keyward: path.join(packageRoot, "src", "bin.ts"),
        app: path.join(packageRoot, "test", "fixtures", "app.ts"),
      },
      outDir: bundleDirectory,
      format: ["esm"],
      platform: "node",
      target: "node20",
      splitting: false,
      noExternal: [/^@keyward\//],
      external: ["pg", "ioredis", "tsx"],
      dts: false,
      silent: true,
      config: false,
      esbuildOptions(options) {
        options.conditions = ["@keyward/source"];
      },
    });
    return path.join(bundleDirectory, "keyward.js");
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

/**
 * The `--app` module of these tests (`fixtures/app.ts`, see `application.ts`), bundled to
 * JavaScript: it exists once `runCli` has been called.
 */
export const testApp = path.join(bundleDirectory, "app.js");

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
