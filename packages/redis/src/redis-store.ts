/**
 * `redisStore`: rate limits and usage on Redis in one round trip per verified request, optionally
 * keys, and a pub/sub channel that evicts changed keys from every instance's verification cache.
 */
import type {
  EventLog,
  KeyStore,
  RateLimitStore,
  StoreParts,
  UsageStore,
  WebhookOutbox,
} from "@keyward/core";
import {
  type CircuitBreakerOptions,
  callGuard,
  memoryRateLimitStore,
  storeFailureReporter,
} from "@keyward/core/toolkit";
import { reportClientErrors } from "./client/client-errors.js";
import { redisConnection } from "./client/connect.js";
import type { RedisClient } from "./client/redis-client.js";
import { defaultRedisTimeoutMs } from "./default-timeout.js";
import {
  createInvalidationChannel,
  type RedisInvalidationChannel,
} from "./invalidation/redis-invalidation-channel.js";
import { defaultPrefix, keyNames } from "./key-names.js";
import { redisKeyStore } from "./keys/redis-key-store.js";
import { redisRateLimitStore, type StoreErrorPolicy } from "./rate-limit/redis-rate-limit-store.js";
import type { TimeSource } from "./rate-limit/redis-steps.js";
import { usageBacklog } from "./rate-limit/usage-backlog.js";
import { redisUsageStore } from "./usage/redis-usage-store.js";

export interface RedisStoreOptions {
  /** An ioredis `Redis` or `Cluster`, or a node-redis client or cluster, already configured. */
  client: RedisClient;
  /** Prepended to every Redis key and to the channel name; no braces. Default `"keyward:"`. */
  prefix?: string;
  /**
   * Longest a request waits on Redis, per call, in ms. Past it the call counts as failed and
   * `onStoreError` decides. Default 1,000: about three times the slowest call measured on a busy
   * but healthy host (docs/redis.md, "Choosing the deadline"), so a busy Redis is not taken for a
   * dead one, while a hung one fails requests within a second and then opens the circuit.
   */
  timeoutMs?: number;
  /**
   * What a rate-limit check does when Redis fails or times out:
   * - `"fail-closed"` (default): the error propagates, so `verify` answers 500 and nothing is
   *   admitted that Redis did not count.
   * - `"fail-open"`: the request is decided by the `insurance` limiter in process memory, with the
   *   same policy, so an outage keeps a limit per instance instead of removing all limits.
   * Key lookups and usage reads have no fallback: they fail (500) while Redis is down.
   */
  onStoreError?: StoreErrorPolicy;
  /** The limiter used while failing open; default `memoryRateLimitStore({ maxKeys: 100_000 })`. */
  insurance?: RateLimitStore;
  /**
   * Told about every failed Redis call (timeouts included), and about the client's own connection
   * errors: the store listens for the client's 'error' events while it is open, reporting the
   * first of each outage (until the client is 'ready' again). Default: the logger of the Keyward
   * using this store (`console.warn` until one does).
   */
  onError?: (error: unknown) => void;
  /** Also store keys in Redis (`store.keys`). Default `false`: keys live elsewhere (Postgres). */
  keys?: boolean;
  /**
   * Count each request's usage inside its rate-limit call (default `true`): one round trip for
   * both, and `store.usage` reads it back. Then `store.usage` must be the usage store Keyward
   * gets. Set `false` to keep usage elsewhere (e.g. Postgres) while limiting on Redis: Keyward's
   * own recorder then buffers usage into that store.
   */
  recordsUsage?: boolean;
  /**
   * The clock rate limits are decided on: `"redis"` (default) takes Redis's `TIME`, so instances
   * with skewed clocks share one limit; `"caller"` takes the `now` Keyward passes (its `Clock`),
   * for tests and simulations on a manual clock.
   */
  time?: TimeSource;
  /**
   * After `failureThreshold` (3) failed calls in a row, Redis is not called for `retryIntervalMs`
   * (500 ms), then one call probes it: during an outage requests get the failure policy at once
   * instead of each waiting `timeoutMs`. `false` turns this off.
   */
  circuitBreaker?: CircuitBreakerOptions | false;
  /** Distinct usage entries kept in memory while Redis is down, written when it is back. Default 10,000. */
  maxBacklog?: number;
  /** How often the invalidation channel checks its subscriber connection. Default 5,000 ms. */
  heartbeatIntervalMs?: number;
}

/** The parts every store has (`StoreParts`), and the invalidation channel. */
export interface RedisStore extends StoreParts {
  /** Rate limits; unless `recordsUsage: false`, each `consume` also counts the request's usage. */
  rateLimits: RateLimitStore & { readonly recordsUsage: boolean };
  usage: UsageStore;
  /** Present when created with `keys: true`. */
  keys?: KeyStore;
  /** The events `keys` writes with its changes; present with `keys: true`. */
  events?: EventLog;
  /** Their webhook deliveries; present with `keys: true`. */
  outbox?: WebhookOutbox;
  /** Carries key invalidations between instances, for `cachedKeyStore(keys, { channel })`. */
  invalidation: RedisInvalidationChannel;
  /**
   * Writes usage held back during an outage (within `timeoutMs`), ends the channel's
   * subscriptions and removes the store's 'error' listener from the client. The client is yours:
   * it is not closed (keep an 'error' listener of your own on it until you close it).
   */
  close(): Promise<void>;
}

/**
 * Keyward storage on Redis, over the client you already have (ioredis or node-redis).
 *
 * @example
 * import Redis from "ioredis";
 * const redis = redisStore({ client: new Redis(process.env.REDIS_URL), keys: true });
 * const keyward = createKeyward({ store: redis, scopes, tiers });
 *
 * @example
 * // Keys on Postgres behind its cache, evicted over Redis pub/sub; limits and usage on Redis.
 * // Redis comes first: its rate-limit script counts usage, which only its own usage store reads.
 * const redis = redisStore({ client, onStoreError: "fail-open" });
 * const pg = postgresStore({ client: pool, invalidation: redis.invalidation });
 * const keyward = createKeyward({ store: combineStores(redis, pg), scopes, tiers });
 */
export function redisStore(options: RedisStoreOptions & { keys: true }): RedisStore & {
  keys: KeyStore;
  events: EventLog;
  outbox: WebhookOutbox;
};
export function redisStore(options: RedisStoreOptions): RedisStore;
export function redisStore(options: RedisStoreOptions): RedisStore {
  if (!options?.client) throw new TypeError("@keyward/redis: `client` is required");
  const connection = redisConnection(options.client);
  const names = keyNames(options.prefix ?? defaultPrefix);
  const timeoutMs = options.timeoutMs ?? defaultRedisTimeoutMs;
  const onStoreError = options.onStoreError ?? "fail-closed";
  if (onStoreError !== "fail-closed" && onStoreError !== "fail-open") {
    throw new TypeError(
      `@keyward/redis: onStoreError must be "fail-closed" or "fail-open", got ${String(onStoreError)}`,
    );
  }
  const time = options.time ?? "redis";
  if (time !== "redis" && time !== "caller") {
    throw new TypeError(`@keyward/redis: time must be "redis" or "caller", got ${String(time)}`);
  }
  const failures = storeFailureReporter("a Redis call failed", options.onError);
  const onError = failures.report;

  const stopReportingClientErrors = reportClientErrors(options.client, onError);

  let backlogFlush: () => void = () => {};
  const guard = callGuard({
    store: "Redis",
    timeoutMs,
    circuitBreaker: options.circuitBreaker ?? {},
    onError,
    onRecovered: () => backlogFlush(),
  });
  const usage = redisUsageStore(connection, names, guard);
  const backlog = usageBacklog(usage, options.maxBacklog ?? 10_000, onError);
  backlogFlush = () => void backlog.flush();
  const rateLimits = redisRateLimitStore(connection, names, guard, usage, backlog, {
    time,
    recordsUsage: options.recordsUsage ?? true,
    onStoreError,
    insurance: options.insurance ?? memoryRateLimitStore({ maxKeys: 100_000 }),
    onVoidError: onError,
  });
  const invalidation = createInvalidationChannel(connection, {
    channel: names.channel,
    timeoutMs,
    failures,
    ...(options.heartbeatIntervalMs === undefined
      ? {}
      : { heartbeatIntervalMs: options.heartbeatIntervalMs }),
  });

  // With keys, the events their changes write and those events' deliveries come with them.
  const keys = options.keys ? redisKeyStore(connection, names, guard) : undefined;
  let closed: Promise<void> | undefined;
  return {
    rateLimits,
    usage,
    ...(keys ? { keys, events: keys.events, outbox: keys.events.outbox } : {}),
    invalidation,
    attachLogger: failures.attachLogger,
    attachObserver: guard.attachObserver,
    close() {
      closed ??= (async () => {
        try {
          rateLimits.stopVoiding();
          await invalidation.close();
          await backlog.flush();
        } finally {
          stopReportingClientErrors();
        }
      })();
      return closed;
    },
  };
}
