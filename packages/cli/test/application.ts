/**
 * The application the CLI is tested against: one Keyward configuration, with organizations, live
 * and test environments, graceful rotation, events and (when a receiver is named) webhooks, on
 * PostgreSQL and/or Redis under a naming of its own. The CLI loads it through
 * `fixtures/app.ts` (`--app`), a child process; the test opens the same application in its own
 * process, as a running instance of the application sharing the stores.
 */
import {
  combineStores,
  createKeyward,
  type FeatureApis,
  type Keyward,
  type KeywardConfig,
  type KeywardStore,
  memoryStore,
} from "@keyward/core";
import { events } from "@keyward/core/events";
import { imports } from "@keyward/core/imports";
import { lifecycle } from "@keyward/core/lifecycle";
import { organizations } from "@keyward/core/organizations";
import { permissions } from "@keyward/core/permissions";
import { postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import { webhooks } from "@keyward/webhooks";
import { Redis } from "ioredis";
import pg from "pg";
import { serverUrl } from "../../postgres/test/support/databases.js";
import { testRedisUrl } from "../../redis/test/support/redis-url.js";

/**
 * The tests' PostgreSQL and Redis, from KEYWARD_TEST_DATABASE_URL and KEYWARD_TEST_REDIS_URL (the
 * stores' own test support reads them, and creates the database when it is missing).
 */
export const databaseUrl = serverUrl;
export const redisUrl = testRedisUrl;

export const scopes = { "profile:read": "Read profiles", "profile:write": "Edit profiles" };
export const tiers = {
  free: { rateLimit: { limit: 60, window: "1m" } },
  pro: { rateLimit: { limit: 600, window: "1m" } },
} as const;
export const environments = { live: "sk_live_", test: "sk_test_" };
/** Standard Webhooks' form: `whsec_` and the base64 of 24 random bytes (here, fixed ones). */
export const webhookSecret = `whsec_${Buffer.from("keyward-cli-webhook-test-secret!").toString("base64")}`;

export type Backends = "postgres" | "redis" | "both";

export interface ApplicationOptions {
  backends: Backends;
  /** The PostgreSQL schema and the Redis prefix, unique per test file. */
  schema: string;
  redisPrefix: string;
  /** Where webhooks go; omitted: no webhooks. */
  webhookUrl?: string | undefined;
  /** Other servers than the local test ones (one nobody listens on, for failures). */
  databaseUrl?: string | undefined;
  redisUrl?: string | undefined;
  /** False: the schema is left as it is (never migrated, for failures). Default true. */
  migrate?: boolean;
}

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

/** The environment variables that make `fixtures/app.ts` open this application. */
export function applicationEnvironment(options: ApplicationOptions): Record<string, string> {
  return {
    KEYWARD_TEST_BACKENDS: options.backends,
    KEYWARD_TEST_SCHEMA: options.schema,
    KEYWARD_TEST_REDIS_PREFIX: options.redisPrefix,
    ...(options.webhookUrl ? { KEYWARD_TEST_WEBHOOK_URL: options.webhookUrl } : {}),
    ...(options.databaseUrl ? { KEYWARD_TEST_DATABASE_URL: options.databaseUrl } : {}),
    ...(options.redisUrl ? { KEYWARD_TEST_REDIS_URL: options.redisUrl } : {}),
    ...(options.migrate === false ? { KEYWARD_TEST_MIGRATE: "false" } : {}),
  };
}

/** The options `fixtures/app.ts` reads from its environment. */
export function applicationOptionsFrom(env: NodeJS.ProcessEnv): ApplicationOptions {
  const backends = env.KEYWARD_TEST_BACKENDS as Backends | undefined;
  if (!backends || !env.KEYWARD_TEST_SCHEMA || !env.KEYWARD_TEST_REDIS_PREFIX) {
    throw new Error("fixtures/app.ts needs KEYWARD_TEST_BACKENDS, _SCHEMA and _REDIS_PREFIX");
  }
  return {
    backends,
    schema: env.KEYWARD_TEST_SCHEMA,
    redisPrefix: env.KEYWARD_TEST_REDIS_PREFIX,
    webhookUrl: env.KEYWARD_TEST_WEBHOOK_URL,
    databaseUrl: env.KEYWARD_TEST_DATABASE_URL,
    redisUrl: env.KEYWARD_TEST_REDIS_URL,
    migrate: env.KEYWARD_TEST_MIGRATE !== "false",
  };
}

export interface Application {
  keyward: ApplicationKeyward;
  storage: KeywardStore;
  close(): Promise<void>;
}

/**
 * Opens the stores (migrating PostgreSQL) and creates the application's Keyward instance. Its
 * `close` ends the connections too, as an application's shutdown would.
 */
export async function openApplication(options: ApplicationOptions): Promise<Application> {
  const pool =
    options.backends === "redis"
      ? undefined
      : new pg.Pool({ connectionString: options.databaseUrl ?? databaseUrl });
  pool?.on("error", () => {});
  const redis =
    options.backends === "postgres"
      ? undefined
      : new Redis(options.redisUrl ?? redisUrl, {
          lazyConnect: true,
          maxRetriesPerRequest: 1,
          // One attempt: an application that cannot reach Redis does not start.
          retryStrategy: () => null,
        });
  // connect() rejects with only "Connection is closed."; the cause comes as an event.
  let redisFailure: unknown;
  redis?.on("error", (error) => {
    redisFailure ??= error;
  });
  const postgres = pool
    ? postgresStore({ client: pool, schema: options.schema, onError: () => {} })
    : undefined;
  try {
    if (options.migrate !== false) await postgres?.migrate();
    await postgres?.ready;
    await redis?.connect();
  } catch (error) {
    // As an application that cannot start: its connections end, the error goes on.
    await pool?.end();
    redis?.disconnect();
    throw redisFailure ?? error;
  }
  const redisParts = redis
    ? redisStore({
        client: redis,
        keys: !postgres,
        prefix: options.redisPrefix,
        // The test machine is shared and busy: a slow round trip is not a failure here.
        timeoutMs: 2_000,
        onError: () => {},
      })
    : undefined;
  const combined = combineStores(
    ...(redisParts ? [redisParts] : []),
    ...(postgres ? [postgres] : []),
    memoryStore(),
  );
  const storage: KeywardStore = {
    ...combined,
    async close() {
      await combined.close();
      await pool?.end();
      await redis?.quit();
    },
  };
  const keyward = createKeyward({ store: storage, ...keywardOptions(options) });
  return { keyward, storage, close: () => keyward.close() };
}

/**
 * The application's features: organizations, environments, graceful rotation, events, imported
 * keys (any token that is neither a Keyward key nor a JWT), each key's last client address,
 * webhooks.
 */
export function applicationFeatures(options: ApplicationOptions) {
  return [
    organizations({ memberships: () => [] }),
    lifecycle({ gracefulRotation: true }),
    events(),
    imports(),
    permissions({ lastUsedAddress: true }),
    ...(options.webhookUrl
      ? [
          webhooks({
            endpoints: [{ id: "receiver", url: options.webhookUrl, secret: webhookSecret }],
          }),
        ]
      : []),
  ] as const;
}

/** The application's instance: the kernel and its features' APIs. */
export type ApplicationKeyward = Keyward & FeatureApis<ReturnType<typeof applicationFeatures>>;

/** Everything but the store. */
export function keywardOptions(options: ApplicationOptions) {
  return {
    scopes,
    tiers: { ...tiers },
    jwt: false,
    logger: false,
    keys: { environments: { ...environments } },
    features: applicationFeatures(options),
  } satisfies Omit<KeywardConfig, "store">;
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
