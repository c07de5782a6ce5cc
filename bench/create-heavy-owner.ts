/**
 * Creating a key for an owner who has had many, with `maxKeysPerOwner` on (its default, 100): the
 * check counts the owner's live keys on every create. With the store's `countLiveByOwner` the count
 * is taken where the keys are; without it (the baseline, the same store with the method removed)
 * Keyward reads every key the owner ever had, revoked ones included.
 *
 * One owner gets `KEYWARD_BENCH_OWNER_KEYS` revoked keys (default 5,000, written straight into the
 * store), then both ways create keys for it, alternating blocks of 10, 60 creates each. Memory,
 * PostgreSQL (`KEYWARD_BENCH_DATABASE_URL`, default postgresql://postgres@127.0.0.1:5432/test, a
 * schema of its own, dropped after) and Redis (`REDIS_URL`, a prefix of its own).
 *
 * @example
 * cd bench && node --conditions=@keyward/source --import tsx create-heavy-owner.ts
 */
import { createKeyward, type KeywardStore, memoryStore, type StoredKey } from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import pg from "pg";
import { median } from "./redis-closed-loop.js";

const ownerKeys = Number(process.env.KEYWARD_BENCH_OWNER_KEYS ?? 5_000);
const databaseUrl =
  process.env.KEYWARD_BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const creates = 60;
const block = 10;

/** The same store, its keys without `countLiveByOwner`: what Keyward did before it existed. */
function withoutCount(store: KeywardStore): KeywardStore {
  return { ...store, keys: { ...store.keys, countLiveByOwner: undefined } };
}

async function measure(name: string, store: KeywardStore) {
  const ownerId = `heavy-${Date.now().toString(36)}`;
  const configure = (on: KeywardStore) =>
    createKeyward({
      store: on,
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
      jwt: false,
      logger: false,
    });
  const counted = configure(store);
  const listing = configure(withoutCount(store));
  const input = {
    ownerId,
    accountTier: "free",
    name: "heavy owner",
    scopes: ["profile:read"],
    tier: "free",
  };
  const template = await counted.keys.create(input);
  const record = (await store.keys.findById(template.id)) as StoredKey;
  const seeded = performance.now();
  for (let i = 0; i < ownerKeys; i++) {
    await store.keys.create({
      ...record,
      id: `${template.id}_${i}`,
      secretHash: `${record.secretHash.slice(0, 48)}${i.toString(16).padStart(16, "0")}`,
      createdAt: record.createdAt - i - 1,
      revokedAt: record.createdAt,
    });
  }
  const seedSeconds = (performance.now() - seeded) / 1_000;
  const times = { counted: [] as number[], listing: [] as number[] };
  for (let done = 0; done < creates; done += block) {
    for (const [side, keyward] of [
      ["counted", counted],
      ["listing", listing],
    ] as const) {
      for (let i = 0; i < block; i++) {
        const started = performance.now();
        const created = await keyward.keys.create(input);
        times[side].push(performance.now() - started);
        // Revoked at once: the owner stays under its limit of 100 live keys.
        await store.keys.revoke(created.id, Date.now());
      }
    }
  }
  const [with_, without] = [median(times.counted), median(times.listing)];
  console.log(
    `| ${name} | ${ownerKeys.toLocaleString("en-US")} | ${without.toFixed(2)} ms | ${with_.toFixed(2)} ms | ${(without / with_).toFixed(1)}× | ${seedSeconds.toFixed(1)} s |`,
  );
  await counted.close();
  await listing.close();
}

console.log(
  `\ncreate p50 for an owner with revoked keys, maxKeysPerOwner 100, ${creates} creates each way, alternating blocks of ${block}; node ${process.version}`,
);
console.log("| store | owner's keys | listing (before) | countLiveByOwner | speed-up | seeding |");
console.log("|---|---:|---:|---:|---:|---:|");

await measure("memory", memoryStore());

const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
const schema = `kw_heavy_${Date.now().toString(36)}`;
const postgres = postgresStore({ client: pool, schema, cache: false });
await postgres.migrate();
try {
  // PostgreSQL keeps keys, usage and events; rate limits stay in memory, as in its docs.
  await measure("postgres", { ...postgres, rateLimits: memoryRateLimitStore() });
} finally {
  await postgres.close();
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
}

const client = new IORedis(redisUrl);
const prefix = `kwheavy:${Date.now().toString(36)}:`;
// A deadline long enough for the baseline, whose listing of the owner takes over 100 ms here.
const redis = redisStore({ client, prefix, keys: true, timeoutMs: 10_000 });
try {
  await measure("redis", redis as unknown as KeywardStore);
} finally {
  await redis.close();
  const stale = await client.keys(`${prefix}*`);
  for (let i = 0; i < stale.length; i += 1_000) await client.del(...stale.slice(i, i + 1_000));
  client.disconnect();
}
