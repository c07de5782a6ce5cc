/**
 * An `InvalidationChannel` on Redis pub/sub: a rotation or revocation on one instance evicts the
 * key from the verification cache of every instance (`cachedKeyStore(keys, { channel })`).
 *
 * Pub/sub delivers at most once and forgets what it could not deliver, so the channel watches its
 * subscriber connection and says so whenever events may have been lost: when the connection closes
 * or errors, and when a heartbeat `PING` on that same connection goes unanswered (a half-open TCP
 * connection loses messages without closing). It then reports `"interrupted"` (the cache drops
 * everything and stops caching), reconnects with backoff on a fresh connection, and reports
 * `"live"` once the server has confirmed the new subscription.
 */

import {
  type ChannelState,
  decodeInvalidation,
  encodeInvalidation,
  type InvalidationChannel,
  type InvalidationListener,
  type KeyInvalidation,
  type StoreFailureReporter,
  StoreUnavailableError,
  storeFailureReporter,
  withDeadline,
} from "@keyward/core/toolkit";
import { redisConnection } from "../client/connect.js";
import type { RedisClient } from "../client/redis-client.js";
import type { RedisConnection, Subscriber } from "../client/redis-connection.js";
import { defaultRedisTimeoutMs } from "../default-timeout.js";
import { defaultPrefix, keyNames } from "../key-names.js";

export interface InvalidationChannelOptions {
  /** Channel name; default `<prefix>invalidations`. */
  channel: string;
  /** Deadline for a publish, a (re)subscription and a heartbeat. */
  timeoutMs: number;
  /** How often the subscriber connection is checked; default 5 s. */
  heartbeatIntervalMs?: number;
  /** Where failures go; attaching a logger to the channel attaches it here. */
  failures: StoreFailureReporter;
}

export interface RedisInvalidationChannel extends InvalidationChannel {
  /** Closes every subscription; pending `subscribe` calls reject. */
  close(): Promise<void>;
}

const maxBackoffMs = 2_000;

export function createInvalidationChannel(
  connection: RedisConnection,
  options: InvalidationChannelOptions,
): RedisInvalidationChannel {
  const { channel, timeoutMs } = options;
  const onError = options.failures.report;
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 5_000;
  const closers = new Set<() => void>();
  let closed = false;

  return {
    attachLogger: options.failures.attachLogger,

    async publish(event: KeyInvalidation) {
      const message = encodeInvalidation(event);
      await deadline(connection.publish(channel, message), timeoutMs, "publish");
    },

    subscribe(listener: InvalidationListener, onReset?: (state: ChannelState) => void) {
      if (closed) return Promise.reject(new Error("The invalidation channel is closed"));
      let stopped = false;
      let live = false;
      /** Failed attempts since the subscription was last live: the backoff grows with them. */
      let failures = 0;
      let current: Subscriber | undefined;
      let heartbeat: ReturnType<typeof setInterval> | undefined;
      let retry: ReturnType<typeof setTimeout> | undefined;
      let settleFirst: { resolve(): void; reject(error: Error): void } | undefined;

      const deliver = (message: string) => {
        const event = decodeInvalidation(message);
        if (event && !stopped) listener(event);
      };

      const drop = () => {
        if (heartbeat) clearInterval(heartbeat);
        heartbeat = undefined;
        current?.close();
        current = undefined;
      };

      const lost = () => {
        if (stopped) return;
        drop();
        if (live) {
          live = false;
          onReset?.("interrupted");
        } else {
          failures += 1;
        }
        schedule();
      };

      const connect = async () => {
        retry = undefined;
        if (stopped) return;
        const subscriber = connection.openSubscriber(channel, { onMessage: deliver, onLost: lost });
        current = subscriber;
        try {
          await deadline(subscriber.ready, Math.max(timeoutMs, 1_000), "subscribe");
        } catch (error) {
          if (current !== subscriber || stopped) return;
          onError(error);
          drop();
          failures += 1;
          schedule();
          return;
        }
        if (current !== subscriber || stopped) return;
        heartbeat = setInterval(() => {
          deadline(subscriber.ping(), Math.max(timeoutMs, 1_000), "heartbeat").catch((error) => {
            if (current !== subscriber) return;
            onError(error);
            lost();
          });
        }, heartbeatIntervalMs);
        heartbeat.unref?.();
        const first = settleFirst;
        settleFirst = undefined;
        live = true;
        failures = 0;
        if (first) first.resolve();
        else onReset?.("live");
      };

      const schedule = () => {
        if (stopped || retry) return;
        const delay = failures === 0 ? 0 : Math.min(maxBackoffMs, 25 * 2 ** failures);
        retry = setTimeout(() => void connect(), delay);
        retry.unref?.();
      };

      const stop = () => {
        stopped = true;
        if (retry) clearTimeout(retry);
        retry = undefined;
        drop();
        closers.delete(stop);
        settleFirst?.reject(new Error("The invalidation channel was closed before it was live"));
        settleFirst = undefined;
      };
      closers.add(stop);

      return new Promise<() => Promise<void>>((resolve, reject) => {
        settleFirst = { resolve: () => resolve(async () => stop()), reject };
        void connect();
      });
    },

    async close() {
      closed = true;
      for (const stop of [...closers]) stop();
    },
  };
}

function deadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return withDeadline(
    promise,
    ms,
    () =>
      new StoreUnavailableError(
        "timeout",
        "Redis",
        `Redis ${what} did not complete within ${ms} ms`,
      ),
  );
}

export interface RedisInvalidationChannelOptions {
  /** Publishes on this client; subscribes on a duplicate of it (or of one node of a cluster). */
  client: RedisClient;
  /** Default `"keyward:invalidations"`, the channel `redisStore` uses with the default prefix. */
  channel?: string;
  /** Deadline for a publish; subscriptions and heartbeats get at least 1 s. Default 1,000 ms. */
  timeoutMs?: number;
  /** Default 5,000 ms. */
  heartbeatIntervalMs?: number;
  /**
   * Told about failed publishes, subscriptions and heartbeats. Default: the logger of the Keyward
   * whose store uses this channel (`console.warn` until one does).
   */
  onError?: (error: unknown) => void;
}

/**
 * The invalidation channel on its own, for a deployment that does not use `redisStore`
 * (`redisStore(...).invalidation` is the same thing on the store's client).
 *
 * @example
 * const channel = redisInvalidationChannel({ client: new Redis(process.env.REDIS_URL) });
 * const keys = cachedKeyStore(postgres.keys, { channel });
 */
export function redisInvalidationChannel(
  options: RedisInvalidationChannelOptions,
): RedisInvalidationChannel {
  return createInvalidationChannel(redisConnection(options.client), {
    channel: options.channel ?? keyNames(defaultPrefix).channel,
    timeoutMs: options.timeoutMs ?? defaultRedisTimeoutMs,
    ...(options.heartbeatIntervalMs === undefined
      ? {}
      : { heartbeatIntervalMs: options.heartbeatIntervalMs }),
    failures: storeFailureReporter("Redis invalidation channel failed", options.onError),
  });
}
