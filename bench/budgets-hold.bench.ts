/**
 * What a hold costs on Redis: `verify()` with `cost` (one layered script call: rate limit, credits,
 * budget) against `budgets.reserve()` + `hold.settle()` of the same key, holds in Redis too
 * (`redisHoldStore`, kept as layers). Both in one run, alternating round after round, sequential
 * calls (not batched); prints the median time per request of each and the Redis script calls per
 * request, counted from Redis's own statistics (`INFO commandstats`).
 *
 * Twice: on the local Redis, and through a proxy delaying each direction by
 * `KEYWARD_BENCH_DELAY_MS` (default 1 ms), a Redis a network away. There the time is mostly round
 * trips waited for, and `verify` waits for one, so `(reserve + settle) / verify − 1` counts the round
 * trips a hold adds (a call sent beside another, or after the answer without being waited for, adds
 * none). Needs
 * Redis (`REDIS_URL`, default redis://127.0.0.1:6379); without one it is skipped.
 *
 * @example
 * npx pnpm@10 bench budgets-hold.bench.ts
 */
import { createKeyward } from "@keyward/core";
import { type BudgetsApi, budgets } from "@keyward/core/budgets";
import { memoryKeyStore } from "@keyward/core/toolkit";
import { redisHoldStore, redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import { median } from "./redis-closed-loop.js";
import { delayingProxy } from "./support/delaying-proxy.js";
import { redisReachable } from "./support/redis-reachable.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const rounds = Number(process.env.KEYWARD_BENCH_ROUNDS ?? 5);
const perRound = Number(process.env.KEYWARD_BENCH_REQUESTS ?? 1_000);
const delayMs = Number(process.env.KEYWARD_BENCH_DELAY_MS ?? 1);

if (await redisReachable(url)) {
  const local = await benchmark(url, perRound);
  const { hostname, port } = new URL(url);
  const proxy = await delayingProxy({ host: hostname, port: Number(port || 6379) }, delayMs);
  const far = await benchmark(`redis://127.0.0.1:${proxy.port}`, Math.ceil(perRound / 10));
  await proxy.close();
  console.log(
    JSON.stringify(
      {
        local,
        [`through a proxy, ${delayMs} ms each way`]: {
          ...far,
          // `verify` waits for one round trip: what a hold adds, in those.
          roundTripsAddedByAHold: Number((far.ratio - 1).toFixed(2)),
          nominalRoundTripMicros: 2 * delayMs * 1000,
        },
      },
      null,
      2,
    ),
  );
} else {
  console.warn(`budgets-hold.bench.ts: skipped, no Redis at ${url}`);
}

async function scriptCalls(client: IORedis): Promise<number> {
  const info = await client.info("commandstats");
  let calls = 0;
  for (const match of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) {
    calls += Number(match[1]);
  }
  return calls;
}

async function benchmark(clientUrl: string, perRound: number) {
  const prefix = `kwbench-holds:${Date.now().toString(36)}:`;
  const client = new IORedis(clientUrl);
  const stats = new IORedis(url);
  const redis = redisStore({ client, prefix, timeoutMs: 1_000 });
  const keyward = createKeyward({
    store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
    scopes: { "completions:write": "Write completions" },
    tiers: { pro: { rateLimit: { limit: 1_000_000_000, window: "1m" } } },
    jwt: false,
    logger: false,
    features: [
      budgets({
        perKey: { limit: 1_000_000_000, period: "month" },
        holds: redisHoldStore({ client, prefix }),
        sweepInterval: false,
      }),
    ],
  }) as ReturnType<typeof createKeyward> & { budgets: BudgetsApi };
  const { id, key } = await keyward.keys.create({
    ownerId: "bench",
    accountTier: "pro",
    name: "bench",
    scopes: ["completions:write"],
    tier: "pro",
  });
  await keyward.keys.setLimits(id, { credits: { remaining: 1_000_000_000 } });
  const header = `Bearer ${key}`;
  const options = { scopes: ["completions:write"], route: "POST /completions" };

  const verifyOnce = async () => {
    const result = await keyward.verify(header, { ...options, cost: 40 });
    if (!result.ok) throw new Error("refused");
  };
  const holdOnce = async () => {
    const result = await keyward.budgets.reserve(header, { ...options, cost: 100 });
    if (!result.ok) throw new Error("refused");
    await result.hold.settle(40);
  };
  const measure = async (run: () => Promise<void>) => {
    const calls = await scriptCalls(stats);
    const started = performance.now();
    for (let i = 0; i < perRound; i++) await run();
    const micros = ((performance.now() - started) * 1000) / perRound;
    // The stats client's own INFO is not a script call.
    const scripts = ((await scriptCalls(stats)) - calls) / perRound;
    return { micros, scripts };
  };

  await measure(verifyOnce);
  await measure(holdOnce);
  const verifies: number[] = [];
  const holds: number[] = [];
  let verifyScripts = 0;
  let holdScripts = 0;
  for (let round = 0; round < rounds; round++) {
    const v = await measure(verifyOnce);
    const h = await measure(holdOnce);
    verifies.push(v.micros);
    holds.push(h.micros);
    verifyScripts = v.scripts;
    holdScripts = h.scripts;
  }
  const figures = {
    rounds,
    perRound,
    verifyWithCostMicros: Math.round(median(verifies)),
    reserveSettleMicros: Math.round(median(holds)),
    ratio: Number((median(holds) / median(verifies)).toFixed(2)),
    scriptCallsPerVerify: verifyScripts,
    scriptCallsPerReserveSettle: holdScripts,
  };
  await keyward.close();
  const keys = await stats.keys(`${prefix}*`);
  if (keys.length > 0) await stats.del(...keys);
  client.disconnect();
  stats.disconnect();
  return figures;
}
