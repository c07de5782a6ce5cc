/**
 * Where the demo keeps its state: in memory unless `DATABASE_URL` or `REDIS_URL` is set. The
 * PostgreSQL and Redis packages (and their drivers) are imported only when their variable is set,
 * so the in-memory demo never loads them.
 *
 * | set                    | keys       | usage      | rate limits |
 * |------------------------|------------|------------|-------------|
 * | neither                | memory     | memory     | memory      |
 * | DATABASE_URL           | PostgreSQL | PostgreSQL | memory      |
 * | REDIS_URL              | Redis      | Redis      | Redis       |
 * | both                   | PostgreSQL | Redis      | Redis       |
 *
 * Usage follows the rate limits on Redis: its rate-limit script counts usage in the same round trip.
 */
import { combineStores, type KeywardStore, memoryStore } from "@keyward/core";
import type { HoldStore } from "@keyward/core/budgets";
import type { DemoConfig } from "./config.js";
import { describeFailure, failureReporter } from "./failure-messages.js";

export interface DemoStore {
  /** The storage to hand `createKeyward`; its `close` also ends the connections opened here. */
  storage: KeywardStore;
  /** Which backend holds what, for the banner. */
  description: string;
  /** Where `budgets()` keeps its holds, beside the limits: Redis when it is set, else memory. */
  holds?: HoldStore;
  /**
   * The PostgreSQL pool, when `DATABASE_URL` is set: metering keeps its ledger there, beside the
   * keys (ended by `storage.close`).
   */
  sql?: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> };
}

interface Opened<T> {
  store: T;
  /** Ends the connection the demo opened (the stores leave their client open: it is ours). */
  end(): Promise<void>;
}

/**
 * Opens the configured backends and combines them as in the table above. PostgreSQL migrations
 * are applied before this returns, so the server never serves against an old schema.
 */
export async function openDemoStore(
  config: Pick<DemoConfig, "databaseUrl" | "redisUrl">,
): Promise<DemoStore> {
  if (!config.databaseUrl && !config.redisUrl) {
    return {
      storage: memoryStore(),
      description: "in memory (everything is lost when the server stops)",
    };
  }
  const postgres = config.databaseUrl ? await openPostgres(config.databaseUrl) : undefined;
  let redis: Awaited<ReturnType<typeof openRedis>> | undefined;
  try {
    redis = config.redisUrl ? await openRedis(config.redisUrl, !postgres) : undefined;
  } catch (error) {
    await postgres?.end();
    throw error;
  }
  // Each part comes from the first store that has it: Redis's usage goes with its rate limits.
  const combined = combineStores(
    ...(redis ? [redis.store] : []),
    ...(postgres ? [postgres.store] : []),
    memoryStore(),
  );
  const storage: KeywardStore = {
    ...combined,
    async close() {
      await Promise.allSettled([combined.close()]);
      await Promise.allSettled([postgres?.end(), redis?.end()]);
    },
  };
  const description =
    postgres && redis
      ? "keys in PostgreSQL, usage and rate limits in Redis"
      : postgres
        ? "keys and usage in PostgreSQL, rate limits in memory (per instance)"
        : "keys, usage and rate limits in Redis";
  return {
    storage,
    description,
    ...(redis ? { holds: redis.holds } : {}),
    ...(postgres ? { sql: postgres.pool } : {}),
  };
}

interface PoolConstructor {
  new (options: {
    connectionString: string;
    connectionTimeoutMillis?: number;
    keepAlive?: boolean;
  }): import("@keyward/postgres").PostgresClient & {
    on(event: "error", listener: (error: Error) => void): unknown;
    end(): Promise<void>;
  };
}

async function openPostgres(connectionString: string) {
  // `pg` ships no types, and @types/pg is not a dependency of the demo: the little used here is
  // typed locally (a non-literal specifier keeps TypeScript from looking for the rest).
  const [driver, { postgresStore }] = await Promise.all([
    import("pg" as string) as Promise<{ default: { Pool: PoolConstructor } }>,
    import("@keyward/postgres"),
  ]);
  // A connection attempt that never completes gives up (and frees its pool slot) after 5 s;
  // keep-alive notices a peer that vanished without closing the connection.
  const pool = new driver.default.Pool({
    connectionString,
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
  });
  // An idle connection that fails (a database restart, a dropped connection) makes the pool emit
  // 'error', which ends the process if nobody listens. The store reports those while it is open;
  // this listener only keeps the process alive before it opens and after it closes.
  pool.on("error", () => {});
  // Failures while opening are reported once, by the rejection below; from then on, by this.
  const report = failureReporter("PostgreSQL");
  let opened = false;
  const store = postgresStore({
    client: pool,
    onError: (error) => {
      if (opened) report(error);
    },
  });
  try {
    await store.migrate();
    await store.ready;
    opened = true;
  } catch (error) {
    await store.close().catch(() => {});
    await pool.end();
    throw new Error(`Could not prepare the database at DATABASE_URL: ${describeFailure(error)}`, {
      cause: error,
    });
  }
  return { store, pool, end: () => pool.end() } satisfies Opened<unknown> & { pool: unknown };
}

async function openRedis(url: string, withKeys: boolean) {
  const [{ Redis }, { redisHoldStore, redisStore }] = await Promise.all([
    import("ioredis"),
    import("@keyward/redis"),
  ]);
  // Connect now, so an unreachable Redis stops the server at start instead of failing requests.
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  // Without a listener ioredis prints "Unhandled error event" on every reconnection attempt. The
  // store reports the client's errors while it is open; this one keeps the rest quiet.
  // connect() itself rejects with only "Connection is closed."; the cause comes as an event.
  let cause: unknown;
  client.on("error", (error) => {
    cause ??= error;
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(`Could not connect to Redis at REDIS_URL: ${describeFailure(cause ?? error)}`, {
      cause: cause ?? error,
    });
  }
  return {
    store: redisStore({ client, keys: withKeys, onError: failureReporter("Redis") }),
    holds: redisHoldStore({ client }),
    end: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  } satisfies Opened<unknown> & { holds: HoldStore };
}
