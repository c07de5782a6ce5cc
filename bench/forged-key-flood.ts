/**
 * Forged-key flood on PostgreSQL: what a flood of well-formed forged keys costs a legitimate client
 * and the database, with the failed-lookup limiter off ("before", `failedLookups: false`) and on
 * ("after", the default), without and with the flood: four phases in one run.
 *
 * - server (`forged-key-flood/server.ts`, own process): Node `http` + the Fetch adapter's
 *   `withApiKey`, keys on the real PostgreSQL at 127.0.0.1:5432 (`postgresStore` over a `pg.Pool`,
 *   verification cache on), its key lookups counted in front of the pool; the route's handler
 *   runs one query of its own on the same pool, as a real profile route would;
 * - legitimate client (this process): one connection from 127.0.0.1, one request at a time with a
 *   valid key, latencies per request;
 * - flood (`forged-key-flood/forged-key-client.ts`, own process): 50 concurrent connections from
 *   127.0.0.2, each request with a fresh forged key, as a closed loop (each connection sends again
 *   as soon as it is answered: the flood grows as the server answers faster). Then, as an extra
 *   pair of phases, the same flood as an open loop at a fixed `FLOOD_RATE` (default 1,000
 *   requests a second), so that before and after face the same offered load.
 *
 * Everything stays on loopback and each phase is bounded (`FLOOD_PHASE_MS`, default 5 s), with a
 * server of its own. The schema is migrated fresh and dropped at the end. `FLOOD_HOST_QUERY=off`
 * leaves the route's own query out.
 *
 * @example
 * npx pnpm@10 --filter @keyward/bench flood
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { Agent, request } from "node:http";
import { createKeyward } from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { postgresStore } from "@keyward/postgres";
import pg from "pg";
import type { FloodReport } from "./forged-key-flood/forged-key-client.js";
import type { ServerStats } from "./forged-key-flood/server.js";
import { closedLoop, type LoopResult } from "./redis-closed-loop.js";

const phaseMs = Number(process.env.FLOOD_PHASE_MS ?? 5_000);
const floodRate = Number(process.env.FLOOD_RATE ?? 1_000);
const floodConcurrency = 50;
/** The flood starts this long before the legitimate client's measurement, and runs past its end. */
const floodLeadMs = 500;

const pool = new pg.Pool({ connectionString: "postgresql://postgres@127.0.0.1:5432/test", max: 2 });
const schema = `keyward_flood_${process.pid}`;
const setupStore = postgresStore({ client: pool, schema, cache: false, invalidation: false });

type FloodKind = "none" | "closed" | "rate";

interface Phase {
  limiter: "off" | "on";
  flood: FloodKind;
  legitimate: LoopResult;
  legitimateFailures: number;
  keyLookupsPerSecond: number;
  /** The server process's CPU use over the phase: 100 is one core busy all the time. */
  serverCpuPercent: number;
  floodReport?: FloodReport;
}

function child(script: string, env: Record<string, string>): ChildProcess {
  return fork(new URL(script, import.meta.url), [], {
    env: { ...process.env, ...env },
    execArgv: process.execArgv,
  });
}

async function startServer(limiter: "on" | "off") {
  const server = child("./forged-key-flood/server.ts", {
    FLOOD_SCHEMA: schema,
    FLOOD_LIMITER: limiter,
  });
  const [{ port }] = (await once(server, "message")) as [{ port: number }];
  return {
    url: `http://127.0.0.1:${port}/api/v1/profiles/bench`,
    async stats(): Promise<ServerStats> {
      server.send("stats");
      const [{ stats }] = (await once(server, "message")) as [{ stats: ServerStats }];
      return stats;
    },
    async stop() {
      server.send("stop");
      await once(server, "exit");
    },
  };
}

/** Resolves once the attackers are sending; `report` resolves when they have stopped. */
async function flood(
  url: string,
  kind: "closed" | "rate",
  durationMs: number,
): Promise<{ report: Promise<FloodReport> }> {
  const attackers = child("./forged-key-flood/forged-key-client.ts", {
    FLOOD_URL: url,
    FLOOD_MS: String(durationMs),
    FLOOD_CONCURRENCY: String(floodConcurrency),
    FLOOD_FROM: "127.0.0.2",
    ...(kind === "rate" ? { FLOOD_RATE: String(floodRate) } : {}),
  });
  await once(attackers, "message"); // "started": loaded and sending
  return {
    report: once(attackers, "message").then(([report]) => report as FloodReport),
  };
}

/** One request at a time from 127.0.0.1 with the valid key; counts answers other than 200. */
async function legitimateClient(url: string, authorization: string, durationMs: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: "127.0.0.1" });
  let failures = 0;
  const send = () =>
    new Promise<void>((resolve, reject) => {
      const sent = request(url, { agent, headers: { authorization } }, (response) => {
        if (response.statusCode !== 200) failures++;
        response.resume();
        response.on("end", resolve);
      });
      sent.on("error", reject);
      sent.end();
    });
  const result = await closedLoop(send, { concurrency: 1, durationMs });
  agent.destroy();
  return { result, failures };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(): Promise<Phase[]> {
  await setupStore.migrate();
  const setup = createKeyward({
    store: { keys: setupStore.keys, usage: setupStore.usage, rateLimits: memoryRateLimitStore() },
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 1_000_000_000, window: "1m" } } },
  });
  const { key } = await setup.keys.create({
    ownerId: "bench",
    accountTier: "free",
    name: "legitimate client",
    scopes: ["profile:read"],
    tier: "free",
  });
  await setup.close();
  const authorization = `Bearer ${key}`;

  const phases: Phase[] = [];
  for (const limiter of ["off", "on"] as const) {
    for (const kind of ["none", "closed", "rate"] as const) {
      // A server per phase, so no phase inherits another's limiter state or backlog.
      const server = await startServer(limiter);
      try {
        // Warm-up: connections, JIT, and the verification cache for the legitimate key.
        const warm = await legitimateClient(server.url, authorization, 1_000);
        if (warm.failures > 0) throw new Error("the legitimate key was refused during warm-up");
        const flooding =
          kind === "none" ? undefined : await flood(server.url, kind, phaseMs + 2 * floodLeadMs);
        if (flooding) await sleep(floodLeadMs);
        const before = await server.stats();
        const legitimate = await legitimateClient(server.url, authorization, phaseMs);
        const after = await server.stats();
        const floodReport = await flooding?.report;
        const seconds = legitimate.result.calls / legitimate.result.opsPerSecond;
        phases.push({
          limiter,
          flood: kind,
          legitimate: legitimate.result,
          legitimateFailures: legitimate.failures,
          keyLookupsPerSecond: (after.keyLookups - before.keyLookups) / seconds,
          serverCpuPercent: ((after.cpuMs - before.cpuMs) / (seconds * 1_000)) * 100,
          ...(floodReport ? { floodReport } : {}),
        });
      } finally {
        await server.stop();
      }
    }
  }
  return phases;
}

function report(phases: Phase[]): void {
  const ms = (value: number) => value.toFixed(2);
  const rows = phases.map((phase) => {
    const floodThroughput = phase.floodReport
      ? Math.round(phase.floodReport.requests / phase.floodReport.seconds).toLocaleString("en")
      : "–";
    const floodStatuses = phase.floodReport
      ? Object.entries(phase.floodReport.statuses)
          .map(([status, count]) => `${status}×${count}`)
          .join(" ")
      : "–";
    return [
      phase.limiter === "off" ? "before (limiter off)" : "after (limiter on)",
      {
        none: "none",
        closed: `${floodConcurrency} clients, closed loop`,
        rate: `${floodRate.toLocaleString("en")}/s, open loop`,
      }[phase.flood],
      ms(phase.legitimate.p50Ms),
      ms(phase.legitimate.p99Ms),
      Math.round(phase.legitimate.opsPerSecond).toLocaleString("en"),
      String(phase.legitimateFailures),
      Math.round(phase.keyLookupsPerSecond).toLocaleString("en"),
      `${Math.round(phase.serverCpuPercent)}%`,
      floodThroughput,
      floodStatuses,
    ];
  });
  const header = [
    "configuration",
    "flood",
    "legit p50 ms",
    "legit p99 ms",
    "legit req/s",
    "legit non-200",
    "DB key lookups/s",
    "server CPU",
    "flood req/s",
    "flood answers",
  ];
  const hostQuery = process.env.FLOOD_HOST_QUERY === "off" ? "no host query" : "host query on";
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}, ${phaseMs} ms a phase, ${hostQuery}`,
  );
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);

  const find = (limiter: Phase["limiter"], kind: FloodKind) =>
    phases.find((phase) => phase.limiter === limiter && phase.flood === kind)!;
  const ratio = (a: number, b: number) => (b === 0 ? "∞" : `${(a / b).toFixed(2)}×`);
  console.log("\nratios");
  for (const kind of ["closed", "rate"] as const) {
    for (const limiter of ["off", "on"] as const) {
      const quiet = find(limiter, "none").legitimate;
      const flooded = find(limiter, kind).legitimate;
      console.log(
        `  ${kind} flood, limiter ${limiter}: legit p50 flood/no flood ${ratio(flooded.p50Ms, quiet.p50Ms)}, p99 ${ratio(flooded.p99Ms, quiet.p99Ms)}`,
      );
    }
    const before = find("off", kind);
    const after = find("on", kind);
    console.log(
      `  ${kind} flood, after/before: legit p50 ${ratio(after.legitimate.p50Ms, before.legitimate.p50Ms)}, p99 ${ratio(after.legitimate.p99Ms, before.legitimate.p99Ms)}, DB key lookups/s ${Math.round(before.keyLookupsPerSecond)} → ${Math.round(after.keyLookupsPerSecond)} (${ratio(before.keyLookupsPerSecond, after.keyLookupsPerSecond)} fewer)`,
    );
  }
}

try {
  report(await run());
} finally {
  await setupStore.close();
  await pool.query(`drop schema if exists ${schema} cascade`);
  await pool.end();
}
