/**
 * How long the stores' own calls take, as a request sees them: `rateLimits.consume` on Redis (the
 * one call a verification makes there) and `keys.findByHash` on PostgreSQL (the lookup of a key
 * the cache does not hold), each through the store with a deadline far above any answer, so that
 * every call is timed to its end. The figures choose the stores' default `timeoutMs`: it must sit
 * above the slowest answer of a busy but healthy store, and fail fast on a dead one.
 *
 *   pnpm --filter @keyward/bench exec node --conditions=@keyward/source --import tsx \
 *     store-call-latency.ts
 *   # KEYWARD_BENCH_REDIS_URL (default redis://127.0.0.1:6379),
 *   # KEYWARD_BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres),
 *   # STORE_LATENCY_SECONDS (default 20), STORE_LATENCY_CONCURRENCY (default 16)
 *
 * docs/benchmarks.md ("Store call deadlines") has the figures on a loaded two-core machine and the
 * commands that loaded it.
 */
import { toPolicy } from "@keyward/core/toolkit";
import { migrate, postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import { Redis } from "ioredis";
import pg from "pg";

const redisUrl = process.env.KEYWARD_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const databaseUrl =
  process.env.KEYWARD_BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const seconds = Number(process.env.STORE_LATENCY_SECONDS ?? 20);
const concurrency = Number(process.env.STORE_LATENCY_CONCURRENCY ?? 16);
/** Far above any answer: every call is timed to its end, none cut by the deadline. */
const noDeadline = 60_000;

interface Figures {
  calls: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

async function measure(call: (index: number) => Promise<unknown>): Promise<Figures> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1_000;
  let index = 0;
  const caller = async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      await call(index++);
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    calls: latencies.length,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    p999: round(at(0.999)),
    max: round(latencies.at(-1)!),
  };
}

const redis = new Redis(redisUrl);
const prefix = `kwbench:latency:${Date.now().toString(36)}:`;
const onRedis = redisStore({ client: redis, prefix, timeoutMs: noDeadline, circuitBreaker: false });
const policy = toPolicy({ limit: 1_000_000, window: "1m" });
const redisFigures = await measure((index) =>
  onRedis.rateLimits.consume(`bucket-${index % 1_000}`, policy, Date.now()),
);
await onRedis.close();
let cursor = "0";
do {
  const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1_000);
  if (keys.length > 0) await redis.del(...keys);
  cursor = next;
} while (cursor !== "0");
redis.disconnect();

const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const schema = `kwbench_latency_${Date.now().toString(36)}`;
await migrate(pool, { schema });
const onPostgres = postgresStore({
  client: pool,
  schema,
  cache: false,
  timeoutMs: noDeadline,
  circuitBreaker: false,
});
const postgresFigures = await measure((index) =>
  onPostgres.keys.findByHash(`${index % 1_000}`.padStart(64, "0")),
);
await onPostgres.close();
await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
await pool.end();

console.log(
  JSON.stringify(
    { seconds, concurrency, redisConsume: redisFigures, postgresFindByHash: postgresFigures },
    null,
    2,
  ),
);
