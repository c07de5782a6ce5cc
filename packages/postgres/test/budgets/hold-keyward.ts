/**
 * The Keyward of the killed-host test's instances (budgets-killed-host.test.ts and the child
 * process of hold-instance.ts): keys, the credits' durable balance and the holds in PostgreSQL,
 * rate limits and the budget's balance in Redis, on the system clock; a key budget by month, holds
 * with a TTL of 2 s and no sweep of their own (the test sweeps when it asks). With `holdsIn:
 * "redis"` the holds are in Redis instead, on the limits' client and prefix: kept as layers.
 */
import { combineStores, createKeyward, type Keyward, type KeywardConfig } from "@keyward/core";
import { type BudgetsApi, budgets } from "@keyward/core/budgets";
import { redisHoldStore, redisStore } from "@keyward/redis";
import type IORedis from "ioredis";
import type pg from "pg";
import { postgresHoldStore, postgresStore } from "../../src/index.js";

export const budgetLimit = 100_000;
export const requiredScopes = ["completions:write"];
export const route = "POST /api/v1/completions";

/** Where the holds are kept. */
export type HoldsIn = "postgres" | "redis";

export interface HoldKeywardParts {
  pool: pg.Pool;
  client: IORedis;
  schema: string;
  redisPrefix: string;
  holdsIn: HoldsIn;
  logger: KeywardConfig["logger"];
}

/** The instance on `pool` and `client`; closing it leaves both open for their owner to close. */
export function holdKeyward(parts: HoldKeywardParts): Keyward & { budgets: BudgetsApi } {
  const { pool, client, schema, redisPrefix, holdsIn, logger } = parts;
  const postgres = postgresStore({ client: pool, schema, invalidation: false });
  const redis = redisStore({ client, prefix: redisPrefix, time: "caller" });
  return createKeyward({
    // Keys and the credits' durable balance in PostgreSQL; rate limits and usage on Redis.
    store: combineStores(redis, postgres),
    scopes: { "completions:write": "Write completions" },
    tiers: { free: { rateLimit: { limit: 1_000_000, window: "1m" } } },
    jwt: false,
    logger,
    features: [
      budgets({
        perKey: { limit: budgetLimit, period: "month" },
        // Short, so the test waits for the TTL on the system clock rather than moving a clock the
        // killed process could not share.
        holdTtl: "2s",
        holds:
          holdsIn === "redis"
            ? redisHoldStore({ client, prefix: redisPrefix })
            : postgresHoldStore({ client: pool, table: `${schema}.holds` }),
        sweepInterval: false,
      }),
    ],
  }) as Keyward & { budgets: BudgetsApi };
}
