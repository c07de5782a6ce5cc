/**
 * Verification with rate limit + usage on Redis, against rate-limiter-flexible on the same Redis.
 *
 * - keyward: `keyward.verify()` of an API key (parse, hash, key lookup in memory, scope check) whose
 *   rate limit (default sliding window) and usage (endpoint, day, last use) are one `EVALSHA` on
 *   `redisStore`'s ioredis connection.
 * - rate-limiter-flexible: `RateLimiterRedis.consume(key)` on its own ioredis connection: a rate
 *   limit only (a fixed-window counter), no key verification, no usage.
 *
 * Each is driven by a closed loop with 64 calls in flight for a fixed duration; the two alternate,
 * round after round, and the median of the rounds is reported. Limits are high enough that nothing
 * is refused. Needs Redis (`REDIS_URL`, default redis://127.0.0.1:6379); without it, it is skipped.
 *
 * @example
 * npx pnpm@10 bench redis.bench.ts
 * KEYWARD_BENCH_ROUNDS=7 KEYWARD_BENCH_SECONDS=5 npx pnpm@10 bench redis.bench.ts
 */
import { createKeyward, memoryKeyStore } from "@keyward/core";
import IORedis from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { redisStore } from "../packages/redis/src/index.js";
import { closedLoop, type LoopResult, median } from "./redis-closed-loop.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const rounds = Number(process.env.KEYWARD_BENCH_ROUNDS ?? 5);
const durationMs = Number(process.env.KEYWARD_BENCH_SECONDS ?? 3) * 1_000;
const concurrency = 64;

async function reachable(): Promise<boolean> {
  const probe = new IORedis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on("error", () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

if (!(await reachable())) {
  console.warn(`redis.bench.ts: skipped, no Redis at ${url}`);
} else {
  await benchmark();
}

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
  const { id, key } = await keyward.keys.create({
    ownerId: "bench",
    accountTier: "pro",
    name: "bench",
    scopes: ["profile:read"],
    tier: "pro",
  });
  const header = `Bearer ${key}`;
  const options = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };
  const verify = async () => {
    const result = await keyward.verify(header, options);
    if (!result.ok) throw new Error(`keyward refused: ${String(result.error.detail)}`);
  };

  const limiter = new RateLimiterRedis({
    storeClient: flexibleClient,
    keyPrefix: `${prefix}rlflx`,
    points: 1_000_000_000,
    duration: 60,
  });
  const consume = () => limiter.consume("bench-key");

  // Warm-up: scripts loaded, connections up, JIT settled.
  await closedLoop(verify, { concurrency, durationMs: 1_000 });
  await closedLoop(consume, { concurrency, durationMs: 1_000 });

  const results: { keyward: LoopResult[]; flexible: LoopResult[] } = { keyward: [], flexible: [] };
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so neither always runs on a warmer (or more tired) machine.
    const order =
      round % 2 === 0 ? (["keyward", "flexible"] as const) : (["flexible", "keyward"] as const);
    for (const name of order) {
      const result = await closedLoop(name === "keyward" ? verify : consume, {
        concurrency,
        durationMs,
      });
      results[name].push(result);
    }
  }

  const usage = await redis.usage.read(id);
  const verified = results.keyward.reduce((sum, r) => sum + r.calls, 0);
  const row = (name: string, list: LoopResult[]) => {
    const opsPerSecond = median(list.map((r) => r.opsPerSecond));
    return `| ${name} | ${Math.round(opsPerSecond).toLocaleString("en-US")} | ${Math.round(Math.min(...list.map((r) => r.opsPerSecond))).toLocaleString("en-US")}–${Math.round(Math.max(...list.map((r) => r.opsPerSecond))).toLocaleString("en-US")} | ${median(list.map((r) => r.p50Ms)).toFixed(2)} | ${median(list.map((r) => r.p99Ms)).toFixed(2)} |`;
  };
  const ratios = results.keyward.map((r, i) => r.opsPerSecond / results.flexible[i]!.opsPerSecond);

  console.log(`\nnode ${process.version}, ${process.platform}/${process.arch}, Redis at ${url}`);
  console.log(
    `${concurrency} calls in flight, ${rounds} rounds of ${durationMs / 1_000} s each, alternating\n`,
  );
  console.log("| closed loop, 64 in flight | ops/s (median) | range | p50 ms | p99 ms |");
  console.log("|---|---:|---:|---:|---:|");
  console.log(row("keyward `verify` + rate limit + usage (`redisStore`)", results.keyward));
  console.log(row("rate-limiter-flexible `RateLimiterRedis.consume()`", results.flexible));
  console.log(
    `\nkeyward / rate-limiter-flexible: ${median(ratios).toFixed(2)}× (median of rounds; range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`,
  );
  console.log(
    `usage recorded in Redis for the bench key: ${usage.totalRequests} (verified: ≥ ${verified})`,
  );

  await keyward.close();
  const cleanup = await keywardClient.keys(`${prefix}*`);
  if (cleanup.length > 0) await keywardClient.del(...cleanup);
  keywardClient.disconnect();
  flexibleClient.disconnect();
}
