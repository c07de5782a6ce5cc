/**
 * An `InvalidationChannel` over PostgreSQL LISTEN/NOTIFY: an instance that rotates or revokes a key
 * sends `pg_notify` after its UPDATE has committed, and every instance listening on the database
 * drops its cached copy. One LISTEN per channel object, however many caches subscribe to it.
 */
import {
  type ChannelState,
  decodeInvalidation,
  encodeInvalidation,
  type InvalidationChannel,
  type InvalidationListener,
  type KeyInvalidation,
  StoreUnavailableError,
  storeFailureReporter,
  withDeadline,
} from "@keyward/core/toolkit";
import { isPoolLike, type PostgresClient } from "../client.js";
import { isPgListenConnection, type PgListenConnection, pgNotifications } from "../drivers/pg.js";
import { isPGliteLike, pgliteNotifications } from "../drivers/pglite.js";
import { checkoutConnection } from "../faults/pooled-connection.js";
import type { NotificationSource } from "./notification-source.js";

export interface PostgresInvalidationChannelOptions {
  /**
   * Opens a dedicated, connected connection for LISTEN; called again whenever it drops. Best for
   * production: `() => pool.connect()`, or a `pg.Client` of its own, e.g. past a pooler such as
   * PgBouncer in transaction mode, where LISTEN does not work.
   */
  connect?: () => Promise<PgListenConnection>;
  /**
   * Or a client to listen through: a `pg` pool (one of its connections is borrowed for good and
   * replaced when it drops), a `pg.Client` (listened on as it is; if it drops, the channel stays
   * interrupted), PGlite, or `postgresJsClient(sql)`.
   */
  client?: PostgresClient;
  /** Where NOTIFY is sent from. Default `client`; with only `connect`, the listening connection. */
  publisher?: PostgresClient;
  /** The NOTIFY channel. Default `keyward_invalidations`; `postgresStore` derives one per schema and prefix. */
  channel?: string;
  /** How often the `pg` LISTEN connection is checked with `SELECT 1`; 0 turns it off. Default 10 s. */
  heartbeatIntervalMs?: number;
  /**
   * How long opening the LISTEN connection, LISTEN itself or a check may take before the connection
   * is taken as lost. Default 5 s.
   */
  heartbeatTimeoutMs?: number;
  /**
   * Longest a NOTIFY may take; past it `publish` rejects (the cache reports it, and other instances
   * fall back on the TTL), so a rotation or revocation never hangs on it. Default 2,000 ms.
   */
  timeoutMs?: number;
  /**
   * Told about dropped connections and failed reconnections. Default: the logger of the Keyward
   * whose store uses this channel (`console.warn` until one does).
   */
  onError?(error: unknown): void;
}

export interface PostgresInvalidationChannel extends InvalidationChannel {
  /** `"connecting"` until LISTEN first takes effect. */
  readonly state: ChannelState | "connecting" | "closed";
  readonly channel: string;
  /** Stops listening and releases the LISTEN connection. Pending `subscribe` calls reject. */
  close(): Promise<void>;
}

interface Subscriber {
  listener: InvalidationListener;
  onReset: ((state: ChannelState) => void) | undefined;
}

/** Whether `client` can carry LISTEN itself, so `postgresStore` may build a channel from it. */
export function canListen(client: unknown): boolean {
  return (
    isPoolLike(client) ||
    isPGliteLike(client) ||
    isPgListenConnection(client) ||
    (client as { notifications?: unknown } | null)?.notifications !== undefined
  );
}

/**
 * @example
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * pool.on("error", (error) => console.warn("PostgreSQL: idle connection failed", error));
 * const channel = postgresInvalidationChannel({ connect: () => pool.connect(), publisher: pool });
 * const keys = cachedKeyStore(store.keys, { channel });
 */
export function postgresInvalidationChannel(
  options: PostgresInvalidationChannelOptions,
): PostgresInvalidationChannel {
  const channel = options.channel ?? "keyward_invalidations";
  if (channel.length === 0 || channel.length > 63) {
    throw new TypeError("channel must be 1 to 63 characters");
  }
  const failures = storeFailureReporter("LISTEN connection problem", options.onError);
  const onError = failures.report;
  const { source, publisher } = resolveSource(options, onError);
  const timeoutMs = options.timeoutMs ?? 2_000;
  if (!(timeoutMs > 0)) throw new TypeError("timeoutMs must be a positive number of milliseconds");

  const subscribers = new Set<Subscriber>();
  const waiting = new Set<{ resolve: () => void; reject: (error: Error) => void }>();
  let state: PostgresInvalidationChannel["state"] = "connecting";
  let stopListening: (() => Promise<void>) | undefined;

  const setState = (next: ChannelState) => {
    if (state === "closed") return;
    state = next;
    for (const subscriber of subscribers) subscriber.onReset?.(next);
    if (next === "live") {
      for (const waiter of waiting) waiter.resolve();
      waiting.clear();
    }
  };

  const deliver = (payload: string) => {
    const event = decodeInvalidation(payload);
    if (event === null) {
      // Not ours, or garbled: dropping every cached record is always safe.
      onError(new Error("Unreadable invalidation payload; dropping every cached key"));
      for (const subscriber of subscribers) subscriber.onReset?.("live");
      return;
    }
    for (const subscriber of subscribers) subscriber.listener(event);
  };

  return {
    get state() {
      return state;
    },
    channel,
    attachLogger: failures.attachLogger,

    async publish(event: KeyInvalidation) {
      const target = publisher();
      const payload = encodeInvalidation(event);
      await withDeadline(
        target.query("SELECT pg_notify($1, $2)", [channel, payload]),
        timeoutMs,
        () =>
          new StoreUnavailableError(
            "timeout",
            "PostgreSQL",
            `PostgreSQL did not take the invalidation NOTIFY within ${timeoutMs} ms`,
          ),
      );
    },

    async subscribe(listener, onReset) {
      if (state === "closed") throw new Error("The invalidation channel is closed");
      const subscriber: Subscriber = { listener, onReset };
      subscribers.add(subscriber);
      stopListening ??= source.listen(channel, deliver, setState);
      if (state !== "live") {
        await new Promise<void>((resolve, reject) => waiting.add({ resolve, reject }));
      }
      return async () => {
        subscribers.delete(subscriber);
      };
    },

    async close() {
      if (state === "closed") return;
      state = "closed";
      subscribers.clear();
      for (const waiter of waiting) waiter.reject(new Error("The invalidation channel was closed"));
      waiting.clear();
      await stopListening?.();
    },
  };
}

function resolveSource(
  options: PostgresInvalidationChannelOptions,
  onError: (error: unknown) => void,
): { source: NotificationSource; publisher: () => PostgresClient } {
  const heartbeat = {
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 10_000,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? 5_000,
  };
  const { client, connect } = options;
  const fixedPublisher = options.publisher ?? client;

  if (connect) {
    // Without a publisher of its own, NOTIFY goes out on the listening connection.
    let listening: PgListenConnection | undefined;
    const source = pgNotifications({
      connect: async () => {
        listening = await connect();
        return listening;
      },
      owned: true,
      reconnect: true,
      onError,
      ...heartbeat,
    });
    return {
      source,
      publisher: () => {
        const target = fixedPublisher ?? listening;
        if (!target) throw new Error("No connection to send the invalidation on yet");
        return target;
      },
    };
  }
  if (!client) throw new TypeError("postgresInvalidationChannel needs `connect` or `client`");
  const publisher = () => fixedPublisher ?? client;

  const notifications = (client as { notifications?: NotificationSource }).notifications;
  if (notifications) return { source: notifications, publisher };
  if (isPGliteLike(client)) return { source: pgliteNotifications(client, onError), publisher };
  if (isPoolLike(client)) {
    const source = pgNotifications({
      connect: async () => {
        // Watched from the moment it is lent; pgNotifications adds its own listener next.
        const held = await checkoutConnection(client);
        const { connection } = held;
        if (!isPgListenConnection(connection)) {
          held.release();
          throw new TypeError("The pool's connections cannot LISTEN (no notification events)");
        }
        return connection;
      },
      owned: true,
      reconnect: true,
      onError,
      ...heartbeat,
    });
    return { source, publisher };
  }
  if (isPgListenConnection(client)) {
    const source = pgNotifications({
      connect: async () => client,
      owned: false,
      reconnect: false,
      onError,
      ...heartbeat,
    });
    return { source, publisher };
  }
  throw new TypeError(
    "This client cannot LISTEN: pass `connect` (a function opening a pg connection) instead",
  );
}
