/**
 * Verification on PostgreSQL (the real server at 127.0.0.1:5432, database `test`), beside the
 * memory store, in one mitata run:
 * - cache hit: `postgresStore` with its verification cache warm; no database round trip;
 * - cache miss: the same store with the cache off, so every verification reads the key row;
 * - memory: `memoryStore()`, the baseline.
 * Rate limits are in memory for all three, so only the key lookup differs.
 */
import { createKeyward, type Keyward, type KeywardStore, memoryStore } from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { postgresStore } from "@keyward/postgres";
import { bench, do_not_optimize, group, summary } from "mitata";
import pg from "pg";

const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const scopes = { "profile:read": "Read profiles" };
const tiers = { free: unlimited };
const options = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };

const pool = new pg.Pool({ connectionString: "postgresql://postgres@127.0.0.1:5432/test", max: 4 });
const schema = `keyward_bench_${process.pid}`;
const cached = postgresStore({ client: pool, schema });
await cached.migrate();
await cached.ready;
const uncached = postgresStore({ client: pool, schema, cache: false, invalidation: false });

async function keywardOn(
  keys: KeywardStore["keys"],
  usage: KeywardStore["usage"],
): Promise<{ keyward: Keyward; header: string }> {
  const keyward = createKeyward({
    store: { keys, usage, rateLimits: memoryRateLimitStore() },
    scopes,
    tiers,
  });
  const { key } = await keyward.keys.create({
    ownerId: "bench",
    accountTier: "free",
    name: "bench",
    scopes: ["profile:read"],
    tier: "free",
  });
  const header = `Bearer ${key}`;
  const check = await keyward.verify(header, options);
  if (!check.ok) throw new Error(`refused the bench key: ${check.error.detail}`);
  return { keyward, header };
}

const memory = memoryStore();
const onMemory = await keywardOn(memory.keys, memory.usage);
const onCache = await keywardOn(cached.keys, cached.usage);
const onDatabase = await keywardOn(uncached.keys, uncached.usage);

summary(() => {
  group("verify on PostgreSQL vs memory (scope + rate limit + usage)", () => {
    bench("memory store", async () =>
      do_not_optimize(await onMemory.keyward.verify(onMemory.header, options)),
    ).baseline(true);
    bench("postgres, cache hit", async () =>
      do_not_optimize(await onCache.keyward.verify(onCache.header, options)),
    );
    bench("postgres, cache miss (cache off)", async () =>
      do_not_optimize(await onDatabase.keyward.verify(onDatabase.header, options)),
    );
  });
});

/** Called by run.ts after the run: close everything, drop the bench schema, end the pool. */
export async function teardown(): Promise<void> {
  await Promise.all([
    onMemory.keyward.close(),
    onCache.keyward.close(),
    onDatabase.keyward.close(),
  ]);
  // The Keyward instances were given the stores' parts, not the stores: close the stores too, which
  // hands the LISTEN connection back to the pool.
  await Promise.all([cached.close(), uncached.close()]);
  await pool.query(`drop schema if exists ${schema} cascade`);
  await pool.end();
}
