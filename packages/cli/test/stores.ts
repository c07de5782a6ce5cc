/**
 * The stores the CLI writes, opened again inside the test with the same naming: the test reads
 * what the CLI did through them, and verifies keys with an in-process Keyward, as an application
 * sharing the database would.
 */
import {
  combineStores,
  createKeyward,
  type Keyward,
  type KeywardStore,
  memoryStore,
} from "@keyward/core";
import { postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import { Redis } from "ioredis";
import pg from "pg";

export const databaseUrl = "postgresql://postgres@127.0.0.1:5432/test";
export const redisUrl = "redis://127.0.0.1:6379";

export const scopes = { "profile:read": "Read profiles", "profile:write": "Edit profiles" };
export const tiers = {
  free: { rateLimit: { limit: 60, window: "1m" } },
  pro: { rateLimit: { limit: 600, window: "1m" } },
} as const;

export interface Naming {
  schema: string;
  redisPrefix: string;
}

/** A unique schema and Redis prefix per test file, so parallel runs never meet. */
export function uniqueNaming(label: string): Naming {
  const suffix = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
  return {
    schema: `keyward_cli_${label}_${suffix}`,
    redisPrefix: `keyward-cli-${label}-${suffix}:`,
  };
}

export type Backends = "postgres" | "redis" | "both";

/** An application's Keyward on the same stores the CLI uses, plus the stores themselves. */
export async function openApplication(backends: Backends, naming: Naming) {
  const pool = backends === "redis" ? undefined : new pg.Pool({ connectionString: databaseUrl });
  const redis = backends === "postgres" ? undefined : new Redis(redisUrl);
  const postgres = pool
    ? postgresStore({ client: pool, schema: naming.schema, onError: () => {} })
    : undefined;
  const redisParts = redis
    ? redisStore({ client: redis, keys: !postgres, prefix: naming.redisPrefix, onError: () => {} })
    : undefined;
  const storage: KeywardStore = combineStores(
    ...(redisParts ? [redisParts] : []),
    ...(postgres ? [postgres] : []),
    memoryStore(),
  );
  await postgres?.ready;
  const keyward: Keyward = createKeyward({
    store: storage,
    scopes,
    tiers: { ...tiers },
    jwt: false,
    logger: false,
  });
  return {
    keyward,
    storage,
    pool,
    async close() {
      await keyward.close();
      await pool?.end();
      await redis?.quit();
    },
  };
}

/** Drops the schema and deletes every Redis key under the prefix. */
export async function dropNaming(naming: Naming): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  await pool.query(`DROP SCHEMA IF EXISTS "${naming.schema}" CASCADE`);
  await pool.end();
  const redis = new Redis(redisUrl);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${naming.redisPrefix}*`, "COUNT", 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== "0");
  await redis.quit();
}
