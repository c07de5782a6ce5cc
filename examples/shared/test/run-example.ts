/**
 * Starts an example the way a user does, through the root `scripts/start.mjs` (which runs the
 * example's own `start` script), and waits for its banner. Each example gets its own process
 * group, so stopping it also stops whatever its start command spawned.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { walkthroughEnd, walkthroughStart } from "../src/banner.js";

export const repositoryRoot = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../..",
);

/** The names `scripts/start.mjs` takes. */
export type StartTarget = "fetch" | "express" | "fastify" | "hono" | "bun" | "deno";

export interface RunningExample {
  /** The URL the banner printed, `http://localhost:<port>`. */
  url: string;
  /** The same server by IPv4 address, for this process's own requests. */
  origin: string;
  stdout(): string;
  stderr(): string;
  /** The walkthrough as printed, start and end markers included. */
  walkthrough(): string;
  /** How long the server took from spawn to banner, in milliseconds. */
  startupMs: number;
  stop(): Promise<void>;
}

/** Environment for an example: in memory, a free port, and the development secret by default. */
export function exampleEnvironment(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", DENO_NO_UPDATE_CHECK: "1" };
  const inherited = [
    "DATABASE_URL",
    "REDIS_URL",
    "KEYWARD_JWT_SECRET",
    "KEYWARD_TIER_LIMITS",
    "KEYWARD_TOKEN_SIGNING_KEY",
    "HEADERS_TIMEOUT_MS",
    "REQUEST_TIMEOUT_MS",
    // Development mode unless a test asks for production (the page at `/`).
    "NODE_ENV",
  ];
  for (const name of inherited) {
    delete env[name];
  }
  return { ...env, ...overrides };
}

/** Spawns `node scripts/start.mjs <target>`; resolves once the banner is out. */
export async function startExample(
  target: StartTarget,
  env: Record<string, string> = {},
  timeoutMs = 45_000,
): Promise<RunningExample> {
  const started = performance.now();
  const child = spawn(process.execPath, ["scripts/start.mjs", target], {
    cwd: repositoryRoot,
    env: exampleEnvironment(env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      stopGroup(child);
      reject(new Error(`${target} printed no banner within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    const check = () => {
      if (!stdout.includes(walkthroughEnd)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${target} exited with ${code} before its banner\n${stdout}\n${stderr}`));
    });
  });
  const startupMs = Math.round(performance.now() - started);

  const url = /^ {2}URL +(http:\/\/\S+)$/m.exec(stdout)?.[1];
  if (!url) throw new Error(`no URL in the banner:\n${stdout}`);
  return {
    url,
    origin: url.replace("//localhost:", "//127.0.0.1:"),
    stdout: () => stdout,
    stderr: () => stderr,
    walkthrough: () =>
      stdout.slice(stdout.indexOf(walkthroughStart), stdout.indexOf(walkthroughEnd)) +
      walkthroughEnd,
    startupMs,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopGroup(child);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) stopGroup(child, "SIGKILL");
    },
  };
}

/** Runs a start target that is expected to fail at start; resolves with its exit code and output. */
export async function startExpectingFailure(
  target: StartTarget,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["scripts/start.mjs", target], {
    cwd: repositoryRoot,
    env: exampleEnvironment(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stdout, stderr };
}

/** Runs a bash script (the printed walkthrough) and collects its output. */
/** The shells a walkthrough is pasted into; zsh comes from Debian's package (`.ci/run`). */
export type PastingShell = "bash" | "zsh";

const hasZsh = spawnSync("zsh", ["--version"]).status === 0;
if (!hasZsh && !process.env.CI) {
  console.warn(
    "[examples] zsh is not installed: the walkthrough is run in bash only (apt-get install zsh)",
  );
}
/** bash, and zsh where installed; in CI zsh is required (a missing one fails the test). */
export const pastingShells: PastingShell[] = hasZsh || process.env.CI ? ["bash", "zsh"] : ["bash"];

/**
 * Runs `script` as if pasted into an interactive shell: read from stdin by `bash -i` or `zsh -i`
 * without start-up files, where `#` starts a comment only in bash (interactive zsh runs it as a
 * command unless `interactivecomments` is set) and backticks or parentheses anywhere are parsed.
 */
export async function runPasted(
  shell: PastingShell,
  script: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  // From a directory unrelated to the repository: the walkthrough must not depend on where it is
  // pasted.
  const args = shell === "bash" ? ["--norc", "--noprofile", "-i"] : ["-f", "-i"];
  const child = spawn(shell, args, {
    env: exampleEnvironment(env),
    stdio: ["pipe", "pipe", "pipe"],
    cwd: tmpdir(),
  });
  child.stdin.end(`${script}\n`);
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output };
}

function stopGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}
