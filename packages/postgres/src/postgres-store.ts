/**
 * `postgresStore`: keys and usage on PostgreSQL, assembled from the key store, the usage store,
 * the verification cache from `@keyward/core/toolkit` and the LISTEN/NOTIFY channel.
 */
import type {
  AllowanceStore,
  EventLog,
  KeyStore,
  StoreParts,
  UsageStore,
  WebhookOutbox,
} from "@keyward/core";
import {
  type CachedKeyStoreOptions,
  type CircuitBreakerOptions,
  cachedKeyStore,
  callGuard,
  type InvalidationChannel,
  storeFailureReporter,
} from "@keyward/core/toolkit";
import type { PostgresClient } from "./client.js";
import { guardedClient } from "./faults/guarded-client.js";
import { isOutage } from "./faults/outage.js";
import { reportPoolErrors } from "./faults/pool-errors.js";
import {
  canListen,
  type PostgresInvalidationChannel,
  postgresInvalidationChannel,
} from "./invalidation/postgres-invalidation-channel.js";
import { postgresKeyStore } from "./keys/postgres-key-store.js";
import { postgresAllowanceStore } from "./limits/postgres-allowance-store.js";
import { type MigrationResult, migrate } from "./schema/migrate.js";
import { type NamingOptions, resolveNaming } from "./schema/naming.js";
import { bufferedUsageStore } from "./usage/buffered-usage-store.js";
import { postgresUsageStore } from "./usage/postgres-usage-store.js";

export interface PostgresStoreOptions extends NamingOptions {
  /**
   * Runs the queries: a `pg.Pool` (recommended), a `pg.Client`, Neon's `Pool`, PGlite, or
   * `postgresJsClient(sql)`. The store never closes it: it is yours. On a pool, the store listens
   * for its 'error' events (an idle connection that failed) and reports them to `onError`, so
   * they cannot end the process.
   */
  client: PostgresClient;
  /**
   * Longest any call to the database may take, in ms: a query with its connection checkout, each
   * statement of a transaction, a NOTIFY. Past it the call fails (a request gets a 500) and a
   * pooled connection it held is destroyed, not returned. Holds whatever the driver's own timeouts
   * are. Default 2,000.
   */
  timeoutMs?: number;
  /**
   * After `failureThreshold` (3) calls in a row failed because the database was unreachable or
   * timed out, no call is sent for `retryIntervalMs` (500 ms), then one probes it: during an
   * outage requests fail at once instead of each waiting `timeoutMs`, and service resumes by
   * itself. Errors that are the database's answer (a constraint, bad input) do not count. `false`
   * turns it off.
   */
  circuitBreaker?: CircuitBreakerOptions | false;
  /**
   * The verification cache (`cachedKeyStore` from `@keyward/core/toolkit`): options, or false to turn it
   * off. By default it is on whenever there is an invalidation channel (see `invalidation`), and
   * off otherwise: a cache that cannot hear other instances' revocations would serve them stale.
   * Passing options without a channel turns on a local cache, right for a single instance only.
   */
  cache?: false | Omit<CachedKeyStoreOptions, "channel">;
  /**
   * Where rotations and revocations are announced to other instances. Default: LISTEN/NOTIFY
   * through `client` when it can listen (a `pg` pool lends one connection for it; PGlite and
   * postgres.js listen themselves). Pass another channel (say, Redis's), or false for none.
   */
  invalidation?: InvalidationChannel | false;
  /**
   * Buffer `usage.record` calls in the store and write them every this many ms (and before reads,
   * and on close). Default 0: every `record` call is one write. Keyward's core already buffers
   * usage on the request path and records whole batches, so this is for other callers.
   */
  usageFlushIntervalMs?: number;
  /**
   * Told about every failed call to the database (timeouts included; not calls the open circuit
   * refused without sending), errors of idle pooled connections, and failures in the background:
   * interval usage writes, LISTEN, publishing. Default: the logger of the Keyward using this store
   * (`console.warn` until one does).
   */
  onError?(error: unknown): void;
}

/** The parts every store has (`StoreParts`: keys and usage here), and the schema's tools. */
export interface PostgresStore extends StoreParts {
  keys: KeyStore;
  usage: UsageStore;
  /** The events `keys` writes with its changes (`keyward_events`). */
  events: EventLog;
  /** Their webhook deliveries (`keyward_webhook_deliveries`). */
  outbox: WebhookOutbox;
  /**
   * Quotas and credits, exact across instances, when rate limits are per instance
   * (`combineStores(store, memoryStore())`). Beside Redis, Redis keeps them instead.
   */
  allowances: AllowanceStore;
  /** Resolves once the verification cache is on (at once when there is none). */
  ready: Promise<void>;
  /** The quoted, schema-qualified table names, for your own queries and backups. */
  tables: {
    keys: string;
    usage: string;
    migrations: string;
    allowances: string;
    events: string;
    webhookDeliveries: string;
  };
  /** The NOTIFY channel this store's caches listen on (when the store built the channel). */
  channel: string | undefined;
  /** Applies pending migrations to this store's schema; see `migrate`. */
  migrate(): Promise<MigrationResult>;
  /** Writes buffered usage now (a no-op without `usageFlushIntervalMs`). */
  flush(): Promise<void>;
  /**
   * Writes buffered usage, stops the cache and the LISTEN connection, and stops listening for the
   * pool's errors (keep a listener of your own until `pool.end()`). Leaves `client` open.
   */
  close(): Promise<void>;
}

/**
 * Rate limits are not kept here: combine it with a store that has them (`combineStores`; Redis
 * across instances, memory for one).
 *
 * @example
 * import pg from "pg";
 * import { combineStores, createKeyward, memoryStore } from "@keyward/core";
 * import { postgresStore } from "@keyward/postgres";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000 });
 * pool.on("error", (error) => console.warn("idle PostgreSQL connection failed", error)); // before and after the store
 * const store = postgresStore({ client: pool });
 * await store.migrate();
 * const keyward = createKeyward({
 *   // keys and usage from PostgreSQL, rate limits per instance from memory
 *   store: combineStores(store, memoryStore()),
 *   scopes, tiers,
 * });
 */
export function postgresStore(options: PostgresStoreOptions): PostgresStore {
  const { client } = options;
  if (typeof client?.query !== "function") {
    throw new TypeError("postgresStore needs a `client` with query(text, params)");
  }
  const naming = resolveNaming(options);
  const failures = storeFailureReporter("a PostgreSQL store call failed", options.onError);
  const onError = failures.report;

  const timeoutMs = options.timeoutMs ?? 2_000;
  const guard = callGuard({
    store: "PostgreSQL",
    timeoutMs,
    circuitBreaker: options.circuitBreaker ?? {},
    isFailure: isOutage,
    onError,
  });
  // Every query of the store goes through `guarded`; `client` itself only carries LISTEN.
  const guarded = guardedClient(client, guard, timeoutMs);
  const stopReportingPoolErrors = reportPoolErrors(client, onError);

  const ownChannel: PostgresInvalidationChannel | undefined =
    options.invalidation === undefined && options.cache !== false && canListen(client)
      ? postgresInvalidationChannel({
          client,
          publisher: guarded,
          channel: naming.channel,
          timeoutMs,
          onError,
        })
      : undefined;
  const channel = options.invalidation === false ? undefined : (options.invalidation ?? ownChannel);

  const storedKeys = postgresKeyStore(guarded, naming);
  const cache =
    options.cache === false || (channel === undefined && options.cache === undefined)
      ? undefined
      : cachedKeyStore(storedKeys, { onError, ...options.cache, ...(channel ? { channel } : {}) });

  const storedUsage = postgresUsageStore(guarded, naming);
  const flushIntervalMs = options.usageFlushIntervalMs ?? 0;
  const buffered =
    flushIntervalMs > 0 ? bufferedUsageStore(storedUsage, { flushIntervalMs, onError }) : undefined;

  let closing: Promise<void> | undefined;
  return {
    keys: cache ?? storedKeys,
    events: storedKeys.events,
    outbox: storedKeys.events.outbox,
    usage: buffered ?? storedUsage,
    allowances: postgresAllowanceStore(guarded, naming),
    ready: cache?.ready ?? Promise.resolve(),
    tables: { ...naming.tables },
    channel: ownChannel?.channel,
    migrate: () => migrate(guarded, naming),
    flush: async () => buffered?.flush(),
    attachLogger: failures.attachLogger,
    attachObserver: guard.attachObserver,
    close() {
      closing ??= (async () => {
        try {
          await buffered?.close();
        } finally {
          await cache?.close();
          await ownChannel?.close();
          stopReportingPoolErrors();
        }
      })();
      return closing;
    },
  };
}
