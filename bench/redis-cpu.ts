/**
 * Where the CPU goes on each side of Redis, per request: the Node process's own CPU time
 * (`process.cpuUsage`) and Redis's (`INFO cpu`, `used_cpu_user` + `used_cpu_sys`), divided by the
 * requests completed, for Keyward's `verify()` with its rate limit and usage on Redis (key only, and
 * key + owner + quota) and rate-limiter-flexible's `consume()`, each as a closed loop of 64 calls in
 * flight over 64 keys. The subjects alternate round after round; the median round is reported.
 *
 * Throughput alone (`redis.bench.ts`) cannot say which side a subject is bound by: with Node and
 * Redis on one machine, each busy side slows the other. The CPU per request of each side can.
 *
 * @example
 * cd bench && node --conditions=@keyward/source --import tsx redis-cpu.ts
 * KEYWARD_BENCH_ROUNDS=5 KEYWARD_BENCH_SECONDS=3 KEYWARD_BENCH_KEYS=1 node … redis-cpu.ts
 * KEYWARD_BENCH_SUBJECTS=0,2 node … redis-cpu.ts   # key only and rate-limiter-flexible alone
 */
import { createKeyward, type TierConfig } from "@keyward/core";
import { memoryKeyStore } from "@keyward/core/toolkit";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { closedLoop, median } from "./redis-closed-loop.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const rounds = Number(process.env.KEYWARD_BENCH_ROUNDS ?? 3);
const durationMs = Number(process.env.KEYWARD_BENCH_SECONDS ?? 3) * 1_000;
const keyCount = Number(process.env.KEYWARD_BENCH_KEYS ?? 64);
const concurrency = 64;
const huge = 1_000_000_000;

const prefix = `kwcpu:${Date.now().toString(36)}:`;
const keywardClient = new IORedis(url);
const flexibleClient = new IORedis(url);
const infoClient = new IORedis(url);
const redis = redisStore({ client: keywardClient, prefix, timeoutMs: 1_000 });

async function keywardWith(tier: TierConfig) {
  const keyward = createKeyward({
    store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
    scopes: { "profile:read": "Read profiles" },
    tiers: { pro: tier },
    jwt: false,
    logger: false,
  });
  const headers: string[] = [];
  for (let i = 0; i < keyCount; i++) {
    const { key } = await keyward.keys.create({
      ownerId: "cpu-bench",
      accountTier: "pro",
      name: `cpu ${i}`,
      scopes: ["profile:read"],
      tier: "pro",
    });
    headers.push(`Bearer ${key}`);
  }
  return { keyward, headers };
}

const keyOnly = await keywardWith({ rateLimit: { limit: huge, window: "1m" } });
const layered = await keywardWith({
  rateLimit: { limit: huge, window: "1m" },
  ownerRateLimit: { limit: huge, window: "1m" },
  quota: { limit: huge, period: "month" },
});
const limiter = new RateLimiterRedis({
  storeClient: flexibleClient,
  keyPrefix: `${prefix}rlflx`,
  points: huge,
  duration: 60,
});

const options = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };
let next = 0;
const verifyWith =
  ({ keyward, headers }: typeof keyOnly) =>
  async () => {
    const result = await keyward.verify(headers[next++ % keyCount], options);
    if (!result.ok) throw new Error(`keyward refused: ${String(result.error.detail)}`);
  };
const subjects = {
  "keyward, key only": verifyWith(keyOnly),
  "keyward, key + owner + quota": verifyWith(layered),
  "rate-limiter-flexible": () => limiter.consume(`key-${next++ % keyCount}`),
};
type Subject = keyof typeof subjects;

/** Redis's CPU seconds so far, user and system, from `INFO cpu`. */
async function redisCpuSeconds(): Promise<number> {
  const info = await infoClient.info("cpu");
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
  return field("used_cpu_user") + field("used_cpu_sys");
}

interface Round {
  opsPerSecond: number;
  nodeMicrosPerOp: number;
  redisMicrosPerOp: number;
  nodeBusy: number;
  redisBusy: number;
}

async function measure(subject: Subject): Promise<Round> {
  const cpu = process.cpuUsage();
  const redisBefore = await redisCpuSeconds();
  const started = performance.now();
  const result = await closedLoop(subjects[subject], { concurrency, durationMs });
  const seconds = (performance.now() - started) / 1_000;
  const used = process.cpuUsage(cpu);
  const nodeSeconds = (used.user + used.system) / 1e6;
  const redisSeconds = (await redisCpuSeconds()) - redisBefore;
  return {
    opsPerSecond: result.opsPerSecond,
    nodeMicrosPerOp: (nodeSeconds * 1e6) / result.calls,
    redisMicrosPerOp: (redisSeconds * 1e6) / result.calls,
    nodeBusy: nodeSeconds / seconds,
    redisBusy: redisSeconds / seconds,
  };
}

/** A subset by index, e.g. `KEYWARD_BENCH_SUBJECTS=0,2`: each subject's figures without the others'. */
const names = (Object.keys(subjects) as Subject[]).filter(
  (_, index) =>
    !process.env.KEYWARD_BENCH_SUBJECTS ||
    process.env.KEYWARD_BENCH_SUBJECTS.split(",").map(Number).includes(index),
);
// Warm-up: scripts loaded, connections up, JIT settled.
for (const name of names) await closedLoop(subjects[name], { concurrency, durationMs: 1_000 });
const results = new Map<Subject, Round[]>(names.map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...names].reverse() : names;
  for (const name of order) results.get(name)!.push(await measure(name));
}

console.log(
  `\n${concurrency} calls in flight over ${keyCount} key(s), ${rounds} alternated rounds of ${durationMs / 1_000} s, node ${process.version}, Redis at ${url}`,
);
console.log(
  "| subject | ops/s | Node CPU µs per op | Redis CPU µs per op | Node busy | Redis busy |",
);
console.log("|---|---:|---:|---:|---:|---:|");
for (const name of names) {
  const list = results.get(name)!;
  const of = (pick: (round: Round) => number) => median(list.map(pick));
  console.log(
    `| ${name} | ${Math.round(of((r) => r.opsPerSecond)).toLocaleString("en-US")} | ${of((r) => r.nodeMicrosPerOp).toFixed(1)} | ${of((r) => r.redisMicrosPerOp).toFixed(1)} | ${(100 * of((r) => r.nodeBusy)).toFixed(0)}% | ${(100 * of((r) => r.redisBusy)).toFixed(0)}% |`,
  );
}

await keyOnly.keyward.close();
await layered.keyward.close();
await redis.close();
keywardClient.disconnect();
flexibleClient.disconnect();
infoClient.disconnect();
