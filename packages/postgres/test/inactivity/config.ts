/**
 * The configuration both the test and its child processes build their instances with: keys and
 * events on PostgreSQL, rate limits and usage on Redis, `disableAfterUnused: "90d"` with a 7-day
 * warning, and no scan timer (the test calls the scan).
 */
import type { KeywardConfig } from "@keyward/core";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import { permissions } from "@keyward/core/permissions";
import { redisStore } from "@keyward/redis";
import type IORedis from "ioredis";
import type pg from "pg";
import { postgresStore } from "../../src/index.js";

export async function inactivityConfig(options: {
  pool: pg.Pool;
  schema: string;
  redis: IORedis;
  prefix: string;
}) {
  const store = postgresStore({ client: options.pool, schema: options.schema });
  await store.ready;
  const redis = redisStore({ client: options.redis, prefix: options.prefix, timeoutMs: 2_000 });
  return {
    store: {
      keys: store.keys,
      events: store.events,
      outbox: store.outbox,
      usage: redis.usage,
      rateLimits: redis.rateLimits,
      close: async () => {
        await redis.close();
        await store.close();
        await options.pool.end();
      },
    },
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 1_000_000, window: "1m" } } },
    logger: false as const,
    features: [
      lifecycle(),
      events({ pruneIntervalMs: false, expiring: false }),
      permissions({
        disableAfterUnused: "90d",
        inactivityWarning: "7d",
        inactivityScanIntervalMs: false,
      }),
    ],
  } satisfies Partial<KeywardConfig>;
}
