/**
 * Layered limits on Redis: `verify()` of a key whose tier adds the owner's shared allowance and a
 * monthly quota (one script call for the three layers and the usage), against `verify()` with the
 * per-key limit only (v0.1's path, whose calls of one event-loop turn share a script call). Closed
 * loop, 64 calls in flight, the two alternating round after round; the median ratio is printed,
 * and the script calls per request counted from Redis's own statistics (`INFO commandstats`).
 * Goal: still one round trip per request, throughput at least 0.8× key-only. Needs Redis
 * (`REDIS_URL`, default redis://127.0.0.1:6379); without one it is skipped.
 *
 * @example
 * npx pnpm@10 bench redis-layers.bench.ts
 */
import { createKeyward, type TierConfig } from "@keyward/core";
import { memoryKeyStore } from "@keyward/core/toolkit";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import { closedLoop, type LoopResult, median } from "./redis-closed-loop.js";
import { redisReachable } from "./support/redis-reachable.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const rounds = Number(process.env.KEYWARD_BENCH_ROUNDS ?? 5);
const durationMs = Number(process.env.KEYWARD_BENCH_SECONDS ?? 3) * 1_000;
const concurrency = 64;
const huge = 1_000_000_000;

if (await redisReachable(url)) await benchmark();
else console.warn(`redis-layers.bench.ts: skipped, no Redis at ${url}`);

/** Script calls Redis has served so far (EVALSHA and EVAL), from its own counters. */
async function scriptCalls(client: IORedis): Promise<number> {
  const info = await client.info("commandstats");
  let calls = 0;
  for (const match of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g))
    calls += Number(match[1]);
  return calls;
}

async function benchmark() {
  const prefix = `kwbench-layers:${Date.now().toString(36)}:`;
  const client = new IORedis(url);
  const stats = new IORedis(url);
  const setup = async (tier: TierConfig, ownerId: string) => {
    const redis = redisStore({ client, prefix, timeoutMs: 1_000 });
    const keyward = createKeyward({
      store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
      scopes: { "profile:read": "Read profiles" },
      tiers: { pro: tier },
      jwt: false,
    });
    const headers: string[] = [];
    // One owner's 8 keys: the owner layers are shared, as in a real account.
    for (let i = 0; i < 8; i++) {
      const { key } = await keyward.keys.create({
        ownerId,
        accountTier: "pro",
        name: `bench ${i}`,
        scopes: ["profile:read"],
        tier: "pro",
      });
      headers.push(`Bearer ${key}`);
    }
    let next = 0;
    const options = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };
    const call = async () => {
      const result = await keyward.verify(headers[next++ % headers.length], options);
      if (!result.ok) throw new Error(`keyward refused: ${String(result.error.detail)}`);
    };
    return { keyward, call };
  };
  const single = await setup({ rateLimit: { limit: huge, window: "1m" } }, "single");
  const layered = await setup(
    {
      rateLimit: { limit: huge, window: "1m" },
      ownerRateLimit: { limit: huge, window: "1m" },
      quota: { limit: huge, period: "month" },
    },
    "layered",
  );

  // Round trips: one request at a time, so no batching hides or merges calls.
  const perRequest = async (call: () => Promise<void>) => {
    const before = await scriptCalls(stats);
    for (let i = 0; i < 200; i++) await call();
    return ((await scriptCalls(stats)) - before) / 200;
  };
  const singleTrips = await perRequest(single.call);
  const layeredTrips = await perRequest(layered.call);

  await closedLoop(single.call, { concurrency, durationMs: 1_000 });
  await closedLoop(layered.call, { concurrency, durationMs: 1_000 });
  const results = { single: [] as LoopResult[], layered: [] as LoopResult[] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? (["layered", "single"] as const) : (["single", "layered"] as const);
    for (const which of order) {
      const call = which === "single" ? single.call : layered.call;
      results[which].push(await closedLoop(call, { concurrency, durationMs }));
    }
  }
  const format = (value: number) => Math.round(value).toLocaleString("en-US");
  const row = (label: string, list: LoopResult[]) => {
    const rates = list.map((r) => r.opsPerSecond);
    return `| ${label} | ${format(median(rates))} | ${format(Math.min(...rates))}–${format(Math.max(...rates))} | ${median(list.map((r) => r.p50Ms)).toFixed(2)} | ${median(list.map((r) => r.p99Ms)).toFixed(2)} |`;
  };
  const ratios = results.layered.map((r, i) => r.opsPerSecond / results.single[i]!.opsPerSecond);
  console.log(`\nnode ${process.version}, ${process.platform}/${process.arch}, Redis at ${url}`);
  console.log(
    `${concurrency} calls in flight, ${rounds} rounds of ${durationMs / 1_000} s, alternating\n`,
  );
  console.log("| 64 in flight | ops/s (median) | range | p50 ms | p99 ms |");
  console.log("|---|---:|---:|---:|---:|");
  console.log(row("key only (v0.1 path)", results.single));
  console.log(row("key + owner + quota", results.layered));
  console.log(
    `\nscript calls per request, one at a time: key only ${singleTrips.toFixed(2)}, key + owner + quota ${layeredTrips.toFixed(2)}`,
  );
  console.log(
    `layered / key only: ${median(ratios).toFixed(2)}× throughput (median of rounds; range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`,
  );

  await single.keyward.close();
  await layered.keyward.close();
  const stream = client.scanStream({ match: `${prefix}*`, count: 1_000 });
  for await (const batch of stream)
    if ((batch as string[]).length > 0) await client.del(...(batch as string[]));
  client.disconnect();
  stats.disconnect();
}
