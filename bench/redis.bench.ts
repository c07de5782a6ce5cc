/**
 * Verification with rate limit + usage on Redis, against rate-limiter-flexible on the same Redis.
 *
 * - keyward: `keyward.verify()` of an API key (parse, hash, key lookup in memory, scope check) whose
 *   rate limit (the default sliding window) and usage (endpoint, day, last use) are one script call
 *   on `redisStore`'s ioredis connection.
 * - keyward with layers: the same, with the owner's shared allowance and a monthly quota added
 *   (64 keys of one account), all in one script call with the usage.
 * - rate-limiter-flexible: `RateLimiterRedis.consume(key)` on its own ioredis connection: a rate
 *   limit only (a fixed-window counter), no key verification, no usage.
 * - rate-limiter-flexible with the same layers: three limiters (the key's, the owner's, a 30-day
 *   quota) consumed at once for each call, as a host would combine them; still no usage, and not
 *   all-or-nothing (a refused layer does not give back what the others took).
 *
 * Each runs as a closed loop with 64 calls in flight for a fixed duration, in two scenarios: every
 * call with the same key (one hot key), and each of the 64 callers with a key of its own. The four
 * alternate round after round and the median of the rounds is reported. Limits are high
 * enough that nothing is refused. Needs Redis (`REDIS_URL`, default redis://127.0.0.1:6379);
 * without one it is skipped. mitata is not used: it times one call at a time.
 *
 * @example
 * npx pnpm@10 bench redis.bench.ts
 * KEYWARD_BENCH_ROUNDS=7 KEYWARD_BENCH_SECONDS=5 npx pnpm@10 bench redis.bench.ts
 */
import { createKeyward } from "@keyward/core";
import { memoryKeyStore } from "@keyward/core/toolkit";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { closedLoop, type LoopResult, median } from "./redis-closed-loop.js";
import { redisReachable } from "./support/redis-reachable.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const rounds = Number(process.env.KEYWARD_BENCH_ROUNDS ?? 5);
const durationMs = Number(process.env.KEYWARD_BENCH_SECONDS ?? 3) * 1_000;
const concurrency = 64;
const scenarios = [
  { name: "one key", keys: 1 },
  { name: "64 keys", keys: 64 },
] as const;

if (await redisReachable(url)) await benchmark();
else console.warn(`redis.bench.ts: skipped, no Redis at ${url}`);

async function benchmark() {
  const prefix = `kwbench:${Date.now().toString(36)}:`;
  const keywardClient = new IORedis(url);
  const flexibleClient = new IORedis(url);

  const redis = redisStore({ client: keywardClient, prefix, timeoutMs: 1_000 });
  const keyward = createKeyward({
    store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
    scopes: { "profile:read": "Read profiles" },
    tiers: { pro: { rateLimit: { limit: 1_000_000_000, window: "1m" } } },
  });
  // The same with every layer of the limits: the owner's shared allowance and a monthly quota,
  // counted for one account's 64 keys (one owner: its layers are shared, as in real use).
  const layered = createKeyward({
    store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
    scopes: { "profile:read": "Read profiles" },
    tiers: {
      pro: {
        rateLimit: { limit: 1_000_000_000, window: "1m" },
        ownerRateLimit: { limit: 1_000_000_000, window: "1m" },
        quota: { limit: 1_000_000_000, period: "month" },
      },
    },
  });
  const createKeys = async (instance: typeof keyward, ownerId: string) => {
    const created: string[] = [];
    for (let i = 0; i < 64; i++) {
      const { key } = await instance.keys.create({
        ownerId,
        accountTier: "pro",
        name: `bench ${i}`,
        scopes: ["profile:read"],
        tier: "pro",
      });
      created.push(`Bearer ${key}`);
    }
    return created;
  };
  const headers = await createKeys(keyward, "bench");
  const layeredHeaders = await createKeys(layered, "bench-layered");
  const options = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };
  const limiter = new RateLimiterRedis({
    storeClient: flexibleClient,
    keyPrefix: `${prefix}rlflx`,
    points: 1_000_000_000,
    duration: 60,
  });
  // The layers of `layered`, the way rate-limiter-flexible offers them: one limiter each.
  const flexibleLayer = (name: string, duration: number) =>
    new RateLimiterRedis({
      storeClient: flexibleClient,
      keyPrefix: `${prefix}rlflx-${name}`,
      points: 1_000_000_000,
      duration,
    });
  const flexibleLayers = {
    key: flexibleLayer("key", 60),
    owner: flexibleLayer("owner", 60),
    quota: flexibleLayer("quota", 30 * 24 * 60 * 60),
  };

  const calls = (keys: number) => {
    let next = 0;
    return {
      keyward: async () => {
        const result = await keyward.verify(headers[next++ % keys], options);
        if (!result.ok) throw new Error(`keyward refused: ${String(result.error.detail)}`);
      },
      layered: async () => {
        const result = await layered.verify(layeredHeaders[next++ % keys], options);
        if (!result.ok) throw new Error(`keyward refused: ${String(result.error.detail)}`);
      },
      flexible: () => limiter.consume(`key-${next++ % keys}`),
      flexibleLayered: () =>
        Promise.all([
          flexibleLayers.key.consume(`key-${next++ % keys}`),
          flexibleLayers.owner.consume("bench-layered"),
          flexibleLayers.quota.consume("bench-layered"),
        ]),
    };
  };

  // Warm-up: scripts loaded, connections up, JIT settled.
  for (const { keys } of scenarios) {
    const call = calls(keys);
    for (const subject of Object.values(call)) {
      await closedLoop(subject, { concurrency, durationMs: 1_000 });
    }
  }

  console.log(`\nnode ${process.version}, ${process.platform}/${process.arch}, Redis at ${url}`);
  console.log(
    `${concurrency} calls in flight, ${rounds} rounds of ${durationMs / 1_000} s, alternating`,
  );
  const format = (value: number) => Math.round(value).toLocaleString("en-US");
  for (const { name, keys } of scenarios) {
    const results = {
      keyward: [] as LoopResult[],
      layered: [] as LoopResult[],
      flexible: [] as LoopResult[],
      flexibleLayered: [] as LoopResult[],
    };
    const call = calls(keys);
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so none always runs on a warmer (or busier) machine.
      const order =
        round % 2
          ? (["flexibleLayered", "flexible", "layered", "keyward"] as const)
          : (["keyward", "layered", "flexible", "flexibleLayered"] as const);
      for (const library of order) {
        results[library].push(await closedLoop(call[library], { concurrency, durationMs }));
      }
    }
    const row = (label: string, list: LoopResult[]) => {
      const rates = list.map((r) => r.opsPerSecond);
      return `| ${label} | ${format(median(rates))} | ${format(Math.min(...rates))}–${format(Math.max(...rates))} | ${median(list.map((r) => r.p50Ms)).toFixed(2)} | ${median(list.map((r) => r.p99Ms)).toFixed(2)} |`;
    };
    const ratiosOf = (list: LoopResult[], baseline = results.flexible) =>
      list.map((r, i) => r.opsPerSecond / baseline[i]!.opsPerSecond);
    const ratios = ratiosOf(results.keyward);
    const layeredRatios = ratiosOf(results.layered);
    const sameLayersRatios = ratiosOf(results.layered, results.flexibleLayered);
    console.log(`\n${name}:\n`);
    console.log("| 64 in flight | ops/s (median) | range | p50 ms | p99 ms |");
    console.log("|---|---:|---:|---:|---:|");
    console.log(row("keyward `verify` + rate limit + usage", results.keyward));
    console.log(row("keyward `verify`, key + owner + quota + usage", results.layered));
    console.log(row("rate-limiter-flexible `consume()`", results.flexible));
    console.log(row("rate-limiter-flexible, key + owner + quota", results.flexibleLayered));
    const summary = (label: string, list: number[], baseline = "rate-limiter-flexible") =>
      `${label} / ${baseline}, ${name}: ${median(list).toFixed(2)}× (median of rounds; range ${Math.min(...list).toFixed(2)}–${Math.max(...list).toFixed(2)}×)`;
    console.log(`\n${summary("keyward", ratios)}`);
    console.log(summary("keyward with layers", layeredRatios));
    console.log(
      summary(
        "keyward with layers",
        sameLayersRatios,
        "rate-limiter-flexible with the same layers",
      ),
    );
  }

  const usage = await redis.usage.read((await keyward.keys.list("bench"))[0]!.id);
  console.log(
    `\nusage counted in Redis for one of the keys: ${format(usage.totalRequests)} requests`,
  );

  await keyward.close();
  await layered.close();
  const stream = keywardClient.scanStream({ match: `${prefix}*`, count: 1_000 });
  for await (const batch of stream)
    if ((batch as string[]).length > 0) await keywardClient.del(...(batch as string[]));
  keywardClient.disconnect();
  flexibleClient.disconnect();
}
