/**
 * The same Keyward configuration on every store, each read past the store, for tests that send one
 * input to all of them and compare: memory, PGlite, a real PostgreSQL and a real Redis. PGlite and
 * the PostgreSQL server probe come from `@keyward/postgres`'s own test support, imported by path:
 * that file resolves PGlite from its own package, so nothing is added to this one. Needs PostgreSQL
 * on 127.0.0.1:5432 and Redis on 127.0.0.1:6379 (callers skip with a notice outside CI when either
 * is down, and fail in CI).
 */
import { createKeyward, type Keyward, type KeywardConfig, memoryStore } from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { migrate, postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import {
  dropSchema,
  dumpSchema,
  serverPool,
  sharedPGlite,
  uniqueSchema,
} from "../../../../packages/postgres/test/support/databases.js";
import { localRedis, testPrefix } from "../../../../packages/redis/test/support/local-redis.js";
import { deletePrefix, dumpPrefix } from "../../../../packages/redis/test/support/scan.js";

export interface StoreUnderTest {
  name: string;
  keyward: Keyward;
  /** Keys and usage, read past the store (rate-limit state apart: valid sessions consume it). */
  dump(): Promise<unknown>;
  /** Everything the store holds, rate-limit state included. */
  dumpAll(): Promise<unknown>;
  close(): Promise<void>;
}

/** Everything but the store: the configuration each store's Keyward instance is made with. */
export type StoreFreeConfig = Omit<KeywardConfig, "store">;

/** One Keyward instance per store, all with `config`; close each with its `close` after `keyward.close()`. */
export async function storesUnderTest(config: StoreFreeConfig): Promise<StoreUnderTest[]> {
  const stores: StoreUnderTest[] = [];
  // Where rate limits live in memory, a new bucket is a new entry: its count is the state.
  const memory = memoryStore();
  const memoryLimits = memoryRateLimitStore();
  stores.push({
    name: "memory",
    keyward: createKeyward({
      store: {
        keys: memory.keys,
        events: memory.events,
        usage: memory.usage,
        rateLimits: memoryLimits,
      },
      ...config,
    }),
    dump: async () => structuredClone(memory.snapshot()),
    dumpAll: async () => ({
      ...structuredClone(memory.snapshot()),
      rateLimitBuckets: memoryLimits.size,
    }),
    close: async () => {},
  });

  const pglite = sharedPGlite();
  const pgliteSchema = uniqueSchema("policy_pglite");
  const pgliteClient = await pglite.get();
  await migrate(pgliteClient, { schema: pgliteSchema });
  const onPGlite = postgresStore({ client: pgliteClient, schema: pgliteSchema });
  await onPGlite.ready;
  const pgliteLimits = memoryRateLimitStore();
  stores.push({
    name: "PGlite",
    keyward: createKeyward({
      store: {
        keys: onPGlite.keys,
        events: onPGlite.events,
        outbox: onPGlite.outbox,
        usage: onPGlite.usage,
        rateLimits: pgliteLimits,
      },
      ...config,
    }),
    dump: () => dumpSchema(pgliteClient, pgliteSchema),
    dumpAll: async () => ({
      ...(await dumpSchema(pgliteClient, pgliteSchema)),
      rateLimitBuckets: pgliteLimits.size,
    }),
    close: async () => {
      await onPGlite.close();
      await pglite.close();
    },
  });

  const pool = serverPool({ max: 4 });
  const serverSchema = uniqueSchema("policy_server");
  await migrate(pool, { schema: serverSchema });
  const onServer = postgresStore({ client: pool, schema: serverSchema });
  await onServer.ready;
  const serverLimits = memoryRateLimitStore();
  stores.push({
    name: "PostgreSQL",
    keyward: createKeyward({
      store: {
        keys: onServer.keys,
        events: onServer.events,
        outbox: onServer.outbox,
        usage: onServer.usage,
        rateLimits: serverLimits,
      },
      ...config,
    }),
    dump: () => dumpSchema(pool, serverSchema),
    dumpAll: async () => ({
      ...(await dumpSchema(pool, serverSchema)),
      rateLimitBuckets: serverLimits.size,
    }),
    close: async () => {
      await onServer.close();
      await dropSchema(pool, serverSchema);
      await pool.end();
    },
  });

  const redis = new IORedis(localRedis);
  const prefix = testPrefix("policy");
  // A deadline far from the default 100 ms: these tests compare answers to input, and a Redis call
  // that a busy machine delays past 100 ms would be a 500 on Redis alone, not a difference.
  const onRedis = redisStore({ client: redis, prefix, keys: true, timeoutMs: 5_000 });
  const rateLimitKeys = `${prefix}rl:`;
  stores.push({
    name: "Redis",
    keyward: createKeyward({
      store: {
        keys: onRedis.keys,
        events: onRedis.events,
        outbox: onRedis.outbox,
        usage: onRedis.usage,
        rateLimits: onRedis.rateLimits,
      },
      ...config,
    }),
    dump: async () =>
      Object.fromEntries(
        Object.entries(await dumpPrefix(redis, prefix)).filter(
          ([key]) => !key.startsWith(rateLimitKeys),
        ),
      ),
    dumpAll: () => dumpPrefix(redis, prefix),
    close: async () => {
      await onRedis.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    },
  });

  return stores;
}
