/**
 * The HTTP benchmark: autocannon, from this process, against a server in a process of its own, for
 * Fastify, Express and a Fetch server (srvx) on Node, and the Fetch server on Bun and Deno when
 * `scripts/runtimes.mjs` can provide them. Each target runs its variants (`servers/variant.ts`)
 * alternated, A B C D A B C D …, one fresh server per measurement (started, warmed up, measured,
 * stopped), so that slow phases of a shared machine fall on every variant alike.
 *
 * On Linux with `taskset`, servers run on CPU 0 and this process (the load generator) on CPU 1.
 * Writes the raw rounds and the medians as JSON (`HTTP_BENCH_OUT`, default `http/results.json`),
 * and prints a table of medians with each variant's ratio to the bare route of the same run.
 *
 * @example
 * npx pnpm@10 bench:http                                     # everything, 3 rounds of 5 s
 * HTTP_BENCH_TARGETS=fastify HTTP_BENCH_ROUNDS=5 npx pnpm@10 bench:http
 *
 * Other settings: HTTP_BENCH_DURATION (seconds measured, default 5), HTTP_BENCH_WARMUP (seconds of
 * load before each measurement, default 1), HTTP_BENCH_CONNECTIONS (default 10), HTTP_BENCH_BUILT=1
 * (Keyward's built packages instead of their source; build them first), HTTP_BENCH_VARIANTS
 * (a subset, e.g. `bare,guard`), HTTP_BENCH_PROFILE_DIR (CPU-profile the Node servers into this
 * folder; `top-frames.ts` summarises a profile).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import type { Variant } from "./servers/variant.js";

const here = dirname(fileURLToPath(import.meta.url));
const benchDir = resolve(here, "..");
const repo = resolve(benchDir, "..");

const rounds = Number(process.env.HTTP_BENCH_ROUNDS ?? 3);
const durationSeconds = Number(process.env.HTTP_BENCH_DURATION ?? 5);
const warmupSeconds = Number(process.env.HTTP_BENCH_WARMUP ?? 1);
const connections = Number(process.env.HTTP_BENCH_CONNECTIONS ?? 10);
const out = resolve(benchDir, process.env.HTTP_BENCH_OUT ?? "http/results.json");
/**
 * A folder for CPU profiles of the Node servers over each measurement (warm-up excluded), one
 * `<target>-<variant>-<round>.cpuprofile` each; read them with `top-frames.ts`.
 */
const profileDir = process.env.HTTP_BENCH_PROFILE_DIR
  ? resolve(process.env.HTTP_BENCH_PROFILE_DIR)
  : undefined;

interface Target {
  name: string;
  framework: string;
  runtime: "node" | "bun" | "deno";
  server: string;
  variants: Variant[];
}

const allVariants: Variant[] = ["bare", "headers", "floor", "guard", "limiter"];
const fetchVariants: Variant[] = ["bare", "headers", "floor", "guard"];
const targets: Target[] = [
  {
    name: "fastify",
    framework: "Fastify",
    runtime: "node",
    server: "fastify.ts",
    variants: allVariants,
  },
  {
    name: "express",
    framework: "Express",
    runtime: "node",
    server: "express.ts",
    variants: allVariants,
  },
  {
    name: "fetch-node",
    framework: "Fetch (srvx)",
    runtime: "node",
    server: "fetch.ts",
    variants: fetchVariants,
  },
  {
    name: "fetch-bun",
    framework: "Fetch (srvx)",
    runtime: "bun",
    server: "fetch.ts",
    variants: fetchVariants,
  },
  {
    name: "fetch-deno",
    framework: "Fetch (srvx)",
    runtime: "deno",
    server: "fetch.ts",
    variants: fetchVariants,
  },
];

const selected = process.env.HTTP_BENCH_TARGETS?.split(",").map((name) => name.trim());
const selectedVariants = process.env.HTTP_BENCH_VARIANTS?.split(",").map((name) => name.trim());
const pinned = hasTaskset();
if (pinned) spawnSync("taskset", ["-p", "-c", "1", String(process.pid)], { stdio: "ignore" });

/**
 * Keyward's packages from source (the default, no build needed) or, with HTTP_BENCH_BUILT=1, as
 * built by `pnpm build` (their `dist`), whose line numbers a CPU profile can point into.
 */
const source = process.env.HTTP_BENCH_BUILT === "1" ? [] : ["--conditions=@keyward/source"];

/** The command that runs `server` on `runtime`, or null when the runtime cannot be had here. */
function serverCommand(target: Target): string[] | null {
  const script = resolve(here, "servers", target.server);
  if (target.runtime === "node") return [process.execPath, ...source, "--import", "tsx", script];
  const bin = runtimeBinary(target.runtime);
  if (bin === null) return null;
  if (target.runtime === "bun")
    return [bin, "--no-install", "--conditions=@keyward/source", script];
  return [
    bin,
    "run",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--allow-sys",
    "--no-remote",
    "--cached-only",
    "--sloppy-imports",
    "--node-modules-dir=manual",
    ...source,
    script,
  ];
}

const binaries = new Map<string, string | null>();
/** Bun or Deno through `scripts/runtimes.mjs` (installed from npm on first use), or null. */
function runtimeBinary(name: "bun" | "deno"): string | null {
  if (!binaries.has(name)) {
    const found = spawnSync(process.execPath, [resolve(repo, "scripts/runtimes.mjs"), name], {
      encoding: "utf8",
    });
    const path = found.status === 0 ? found.stdout.trim().split("\n").at(-1) : undefined;
    if (!path) console.error(`skipping ${name}: ${found.stderr.trim() || "not available"}`);
    binaries.set(name, path ?? null);
  }
  return binaries.get(name) ?? null;
}

function variantsOf(target: Target): Variant[] {
  return target.variants.filter(
    (variant) => !selectedVariants || selectedVariants.includes(variant),
  );
}

function hasTaskset(): boolean {
  if (process.platform !== "linux" || cpus().length < 2) return false;
  return spawnSync("taskset", ["-c", "0", "true"]).status === 0;
}

interface Started {
  child: ChildProcess;
  port: number;
  authorization: string;
}

/** The server being measured, stopped with this process if it is interrupted. */
let current: ChildProcess | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    current?.kill("SIGKILL");
    process.exit(1);
  });
}

async function startServer(
  command: string[],
  variant: Variant,
  profileFile: string | undefined,
): Promise<Started> {
  const [file, ...args] = pinned ? ["taskset", "-c", "0", ...command] : command;
  const child = spawn(file!, args, {
    cwd: benchDir,
    env: {
      ...process.env,
      HTTP_BENCH_VARIANT: variant,
      NODE_ENV: "production",
      ...(profileFile ? { HTTP_BENCH_PROFILE_FILE: profileFile } : {}),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  current = child;
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolvePromise, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited (${code}) before it was ready`)));
    lines.on("line", (line) => {
      if (!line.startsWith("{")) return;
      const ready = JSON.parse(line) as { port: number; authorization: string };
      resolvePromise({ child, port: ready.port, authorization: ready.authorization });
    });
  });
}

async function stopServer(started: Started): Promise<void> {
  if (started.child.exitCode !== null) return;
  const exited = new Promise((done) => started.child.once("exit", done));
  // SIGTERM first, so a profiled server can write its profile; SIGKILL if it does not go.
  started.child.kill("SIGTERM");
  const timer = setTimeout(() => started.child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

interface Measurement {
  requestsPerSecond: number;
  /**
   * The server process's CPU time (user + system) per request served, in µs, from /proc: what a
   * request costs the server whatever else the machine is doing, unlike requests per second,
   * which moves with the CPU time other processes take. Null where /proc is not available.
   */
  serverCpuMicrosPerRequest: number | null;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** CPU time used so far by process `pid` (user + system), in µs; null without /proc. */
function cpuMicros(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command name (which may hold spaces, hence from the last ")"): utime and
    // stime are the 12th and 13th, in clock ticks (100 a second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(")").at(-1)!.trim().split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
  } catch {
    return null;
  }
}

async function load(
  url: string,
  authorization: string,
  seconds: number,
  pid?: number,
): Promise<Measurement> {
  const cpuBefore = cpuMicros(pid);
  const result = await autocannon({
    url,
    connections,
    pipelining: 1,
    duration: seconds,
    headers: { authorization },
  });
  const cpuAfter = cpuMicros(pid);
  return {
    requestsPerSecond: result.requests.total / seconds,
    serverCpuMicrosPerRequest:
      cpuBefore === null || cpuAfter === null
        ? null
        : (cpuAfter - cpuBefore) / result.requests.total,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface TargetResult {
  name: string;
  framework: string;
  runtime: string;
  runtimeVersion: string;
  /** raw[round][variant] */
  raw: Partial<Record<Variant, Measurement>>[];
  medians: Partial<
    Record<
      Variant,
      {
        requestsPerSecond: number;
        latencyP50Ms: number;
        latencyP99Ms: number;
        serverCpuMicrosPerRequest: number | null;
      }
    >
  >;
  /** The median over rounds of each round's variant / bare requests per second. */
  ratioToBare: Partial<Record<Variant, number>>;
  /** The median over rounds of each round's bare / variant server CPU per request (higher: cheaper). */
  cpuRatioToBare: Partial<Record<Variant, number | null>>;
}

function runtimeVersion(command: string[]): string {
  const probe = spawnSync(command[0]!, ["--version"], { encoding: "utf8" });
  return probe.stdout.trim().split("\n")[0] ?? "unknown";
}

const results: TargetResult[] = [];
const started = new Date();
for (const target of targets) {
  if (selected && !selected.includes(target.name)) continue;
  const command = serverCommand(target);
  if (command === null) continue;
  const result: TargetResult = {
    name: target.name,
    framework: target.framework,
    runtime: target.runtime,
    runtimeVersion: runtimeVersion(command),
    raw: [],
    medians: {},
    ratioToBare: {},
    cpuRatioToBare: {},
  };
  for (let round = 0; round < rounds; round++) {
    const measured: Partial<Record<Variant, Measurement>> = {};
    for (const variant of variantsOf(target)) {
      const profileFile =
        profileDir && target.runtime === "node"
          ? resolve(profileDir, `${target.name}-${variant}-${round + 1}.cpuprofile`)
          : undefined;
      const server = await startServer(command, variant, profileFile);
      try {
        const url = `http://127.0.0.1:${server.port}/api/v1/profiles/bench`;
        if (warmupSeconds > 0) await load(url, server.authorization, warmupSeconds);
        if (profileFile) server.child.kill("SIGUSR2");
        const measurement = await load(
          url,
          server.authorization,
          durationSeconds,
          server.child.pid,
        );
        if (measurement.non2xx > 0 || measurement.errors > 0) {
          throw new Error(
            `${target.name}/${variant}: ${measurement.non2xx} non-2xx answers, ${measurement.errors} errors`,
          );
        }
        measured[variant] = measurement;
        console.error(
          `${target.name} round ${round + 1}/${rounds} ${variant}: ${Math.round(measurement.requestsPerSecond)} req/s`,
        );
      } finally {
        await stopServer(server);
      }
    }
    result.raw.push(measured);
  }
  for (const variant of variantsOf(target)) {
    const of = (pick: (m: Measurement) => number) =>
      median(result.raw.map((r) => pick(r[variant]!)));
    result.medians[variant] = {
      requestsPerSecond: of((m) => m.requestsPerSecond),
      latencyP50Ms: of((m) => m.latencyP50Ms),
      latencyP99Ms: of((m) => m.latencyP99Ms),
      serverCpuMicrosPerRequest: result.raw.every(
        (r) => r[variant]!.serverCpuMicrosPerRequest !== null,
      )
        ? of((m) => m.serverCpuMicrosPerRequest!)
        : null,
    };
    result.cpuRatioToBare[variant] = result.raw.every(
      (r) => r[variant]!.serverCpuMicrosPerRequest !== null,
    )
      ? median(
          result.raw.map(
            (r) => r.bare!.serverCpuMicrosPerRequest! / r[variant]!.serverCpuMicrosPerRequest!,
          ),
        )
      : null;
    result.ratioToBare[variant] = median(
      result.raw.map((r) => r[variant]!.requestsPerSecond / r.bare!.requestsPerSecond),
    );
  }
  results.push(result);
}

const report = {
  date: started.toISOString(),
  commit: spawnSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: repo,
    encoding: "utf8",
  }).stdout.trim(),
  machine: {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? "unknown",
    platform: `${process.platform}/${process.arch}`,
    loadAverageAtStart: (await import("node:os")).loadavg(),
  },
  settings: { rounds, durationSeconds, warmupSeconds, connections, pipelining: 1, pinned },
  targets: results,
};
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);

console.log(
  `\nHTTP benchmark, ${report.date}, commit ${report.commit}, ${rounds} alternated rounds of ${durationSeconds} s, ${connections} connections${pinned ? ", server on CPU 0, load on CPU 1" : ""}`,
);
console.log(
  "| target | variant | req/s (median) | × bare | server CPU µs/req | bare CPU ÷ this | p50 ms | p99 ms |",
);
console.log("|---|---|---:|---:|---:|---:|---:|---:|");
for (const result of results) {
  for (const variant of Object.keys(result.medians) as Variant[]) {
    const m = result.medians[variant]!;
    console.log(
      `| ${result.name} | ${variant} | ${Math.round(m.requestsPerSecond).toLocaleString("en-US")} | ${result.ratioToBare[variant]!.toFixed(2)} | ${m.serverCpuMicrosPerRequest?.toFixed(1) ?? "–"} | ${result.cpuRatioToBare[variant]?.toFixed(2) ?? "–"} | ${m.latencyP50Ms} | ${m.latencyP99Ms} |`,
    );
  }
}
console.log(`\nraw rounds and medians: ${relative(process.cwd(), out)}`);
