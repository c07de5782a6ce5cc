/**
 * The stores the CLI works on, opened from `DATABASE_URL` / `REDIS_URL` as the demo opens them:
 *
 * | set          | keys       | usage      |
 * |--------------|------------|------------|
 * | DATABASE_URL | PostgreSQL | PostgreSQL |
 * | REDIS_URL    | Redis      | Redis      |
 * | both         | PostgreSQL | Redis      |
 *
 * With both, usage is Redis's: its rate-limit script counts it. Each connection is made before any
 * command runs, so an unreachable store fails fast, with exit code 3 and nothing changed.
 */
import { combineStores, type KeywardStore, memoryStore } from "@keyward/core";
import { type PostgresStore, postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import { Redis } from "ioredis";
import pg from "pg";
import type { CliConfig } from "./config.js";
import { CliError, ExitCode } from "./exit-codes.js";
import { describeFailure } from "./failure.js";

/** How long a connection attempt may take before the store counts as unreachable. */
const connectTimeoutMs = 3_000;

export interface OpenedStores {
  /** Keys, usage and rate limits, for `createKeyward`. */
  storage: KeywardStore;
  /** The PostgreSQL store, when `DATABASE_URL` is set: `migrate` needs it. */
  postgres: PostgresStore | undefined;
  /** Closes the stores and ends the connections opened here. */
  close(): Promise<void>;
}

export interface StoreUrls {
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
}

/** `DATABASE_URL` and `REDIS_URL`, empty values counting as unset. */
export function storeUrls(env: NodeJS.ProcessEnv): StoreUrls {
  return { databaseUrl: env.DATABASE_URL || undefined, redisUrl: env.REDIS_URL || undefined };
}

export async function openStores(
  urls: StoreUrls,
  naming: Pick<CliConfig, "postgres" | "redis">,
): Promise<OpenedStores> {
  if (!urls.databaseUrl && !urls.redisUrl) {
    throw new CliError(ExitCode.badInput, "set DATABASE_URL or REDIS_URL (or both)");
  }
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => {});
  };
  try {
    const postgres = urls.databaseUrl
      ? await openPostgres(urls.databaseUrl, naming.postgres ?? {}, closers)
      : undefined;
    const redis = urls.redisUrl
      ? await openRedis(urls.redisUrl, naming.redis ?? {}, !postgres, closers)
      : undefined;
    // Each part from the first store that has it; memory only supplies rate limits the CLI never
    // consumes (it verifies no key).
    const storage = combineStores(
      ...(redis ? [redis] : []),
      ...(postgres ? [postgres] : []),
      memoryStore(),
    );
    return { storage, postgres, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function openPostgres(
  url: string,
  naming: NonNullable<CliConfig["postgres"]>,
  closers: (() => Promise<void>)[],
): Promise<PostgresStore> {
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  // An idle connection that fails would otherwise end the process with an unhandled 'error'.
  pool.on("error", () => {});
  closers.push(() => pool.end());
  try {
    (await pool.connect()).release();
  } catch (error) {
    throw unreachable("PostgreSQL at DATABASE_URL", error);
  }
  const store = postgresStore({ client: pool, ...naming, onError: () => {} });
  closers.push(() => store.close());
  // The verification cache's LISTEN connection: revocations and rotations made here are announced
  // to every running instance through it, as if one of them had made them.
  await store.ready;
  return store;
}

async function openRedis(
  url: string,
  options: NonNullable<CliConfig["redis"]>,
  withKeys: boolean,
  closers: (() => Promise<void>)[],
) {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    maxRetriesPerRequest: 1,
    // One attempt: a CLI should say the store is down, not retry for ever.
    retryStrategy: () => null,
  });
  let cause: unknown;
  client.on("error", (error) => {
    cause ??= error;
  });
  closers.push(async () => {
    await client.quit().catch(() => client.disconnect());
  });
  try {
    await client.connect();
  } catch (error) {
    throw unreachable("Redis at REDIS_URL", cause ?? error);
  }
  const store = redisStore({
    client,
    keys: withKeys,
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    // The CLI waits for an operator, not a request: allow a slow round trip.
    timeoutMs: 2_000,
    onError: () => {},
  });
  closers.push(() => store.close());
  return store;
}

function unreachable(what: string, cause: unknown): CliError {
  return new CliError(
    ExitCode.storeUnavailable,
    `cannot reach ${what}: ${describeFailure(cause)}`,
    { cause },
  );
}
