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
 * load before each measurement, default 1), HTTP_BENCH_CONNECTIONS (default 10).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
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

interface Target {
  name: string;
  framework: string;
  runtime: "node" | "bun" | "deno";
  server: string;
  variants: Variant[];
}

const allVariants: Variant[] = ["bare", "headers", "guard", "limiter"];
const fetchVariants: Variant[] = ["bare", "headers", "guard"];
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
const pinned = hasTaskset();
if (pinned) spawnSync("taskset", ["-p", "-c", "1", String(process.pid)], { stdio: "ignore" });

/** The command that runs `server` on `runtime`, or null when the runtime cannot be had here. */
function serverCommand(target: Target): string[] | null {
  const script = resolve(here, "servers", target.server);
  if (target.runtime === "node") {
    return [process.execPath, "--conditions=@keyward/source", "--import", "tsx", script];
  }
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
    "--conditions=@keyward/source",
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

function hasTaskset(): boolean {
  if (process.platform !== "linux" || cpus().length < 2) return false;
  return spawnSync("taskset", ["-c", "0", "true"]).status === 0;
}

interface Started {
  child: ChildProcess;
  port: number;
  authorization: string;
}

async function startServer(command: string[], variant: Variant): Promise<Started> {
  const [file, ...args] = pinned ? ["taskset", "-c", "0", ...command] : command;
  const child = spawn(file!, args, {
    cwd: benchDir,
    env: { ...process.env, HTTP_BENCH_VARIANT: variant, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
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
  started.child.kill("SIGKILL");
  await exited;
}

interface Measurement {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function load(url: string, authorization: string, seconds: number): Promise<Measurement> {
  const result = await autocannon({
    url,
    connections,
    pipelining: 1,
    duration: seconds,
    headers: { authorization },
  });
  return {
    requestsPerSecond: result.requests.total / seconds,
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
    Record<Variant, { requestsPerSecond: number; latencyP50Ms: number; latencyP99Ms: number }>
  >;
  /** The median over rounds of each round's variant / bare requests per second. */
  ratioToBare: Partial<Record<Variant, number>>;
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
  };
  for (let round = 0; round < rounds; round++) {
    const measured: Partial<Record<Variant, Measurement>> = {};
    for (const variant of target.variants) {
      const server = await startServer(command, variant);
      try {
        const url = `http://127.0.0.1:${server.port}/api/v1/profiles/bench`;
        if (warmupSeconds > 0) await load(url, server.authorization, warmupSeconds);
        const measurement = await load(url, server.authorization, durationSeconds);
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
  for (const variant of target.variants) {
    const of = (pick: (m: Measurement) => number) =>
      median(result.raw.map((r) => pick(r[variant]!)));
    result.medians[variant] = {
      requestsPerSecond: of((m) => m.requestsPerSecond),
      latencyP50Ms: of((m) => m.latencyP50Ms),
      latencyP99Ms: of((m) => m.latencyP99Ms),
    };
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
console.log("| target | variant | req/s (median) | × bare | p50 ms | p99 ms |");
console.log("|---|---|---:|---:|---:|---:|");
for (const result of results) {
  for (const variant of Object.keys(result.medians) as Variant[]) {
    const m = result.medians[variant]!;
    console.log(
      `| ${result.name} | ${variant} | ${Math.round(m.requestsPerSecond).toLocaleString("en-US")} | ${result.ratioToBare[variant]!.toFixed(2)} | ${m.latencyP50Ms} | ${m.latencyP99Ms} |`,
    );
  }
}
console.log(`\nraw rounds and medians: ${relative(process.cwd(), out)}`);
