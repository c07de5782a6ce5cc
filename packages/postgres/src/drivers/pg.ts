/**
 * LISTEN over `pg` (and anything built on it, like Neon's `Pool`): one dedicated connection, kept
 * alive by a heartbeat, reopened with backoff when it drops. Every drop is reported as
 * `"interrupted"` and every reopening as `"live"`, so caches drop what they may have missed.
 */
import type { ChannelState } from "@keyward/core";
import type { PostgresClient } from "../client.js";
import { type NotificationSource, quoteChannel } from "../invalidation/notification-source.js";

/** What LISTEN needs of a `pg.Client` or a `PoolClient`. */
export interface PgListenConnection extends PostgresClient {
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloaded EventEmitter signatures
  on(event: "notification" | "error" | "end", listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloaded EventEmitter signatures
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
  /** A `PoolClient`: given back (and destroyed) rather than ended. */
  release?(destroy?: boolean | Error): void;
  end?(): Promise<void>;
}

export function isPgListenConnection(client: unknown): client is PgListenConnection {
  const candidate = client as Partial<PgListenConnection> | null;
  return (
    typeof candidate?.query === "function" &&
    typeof candidate.on === "function" &&
    typeof candidate.removeListener === "function"
  );
}

export interface PgNotificationsOptions {
  /** Opens a connected connection. Called again after the previous one dropped, unless `reconnect` is false. */
  connect(): Promise<PgListenConnection>;
  /** Whether the connection is this source's to close (true for one it opened or borrowed). */
  owned: boolean;
  reconnect: boolean;
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  onError(error: unknown): void;
}

const firstRetryMs = 100;
const maxRetryMs = 5_000;

export function pgNotifications(options: PgNotificationsOptions): NotificationSource {
  const { connect, owned, reconnect, heartbeatIntervalMs, heartbeatTimeoutMs, onError } = options;

  return {
    listen(channel, onPayload, onState: (state: ChannelState) => void) {
      const quoted = quoteChannel(channel);
      let stopped = false;
      /** The connection LISTEN is in effect on; undefined while (re)connecting. */
      let current: PgListenConnection | undefined;
      let retryTimer: ReturnType<typeof setTimeout> | undefined;
      let heartbeatTimer: ReturnType<typeof setInterval> | undefined;
      let failures = 0;

      const onNotification = (message: { channel: string; payload?: string }) => {
        if (message.channel === channel && message.payload !== undefined)
          onPayload(message.payload);
      };
      // Errors of a connection still being set up reject its LISTEN query instead.
      const onConnectionError = (error: unknown) => lost(current, error);
      const onEnd = () => lost(current, new Error("LISTEN connection ended"));

      const letGo = (connection: PgListenConnection) => {
        connection.removeListener("notification", onNotification);
        connection.removeListener("error", onConnectionError);
        connection.removeListener("end", onEnd);
        // A late error on a connection being closed must not become an uncaught exception.
        connection.on("error", () => {});
        if (!owned) return;
        if (connection.release) connection.release(true);
        else connection.end?.().catch(() => {});
      };

      const lost = (connection: PgListenConnection | undefined, error: unknown) => {
        if (connection === undefined || connection !== current) return;
        current = undefined;
        clearInterval(heartbeatTimer);
        letGo(connection);
        onError(error);
        onState("interrupted");
        retry();
      };

      const retry = () => {
        if (stopped || !reconnect) return;
        const delay = Math.min(maxRetryMs, firstRetryMs * 2 ** failures++);
        retryTimer = setTimeout(open, delay);
        unref(retryTimer);
      };

      const heartbeat = async () => {
        const connection = current;
        if (!connection) return;
        try {
          await withTimeout(connection.query("SELECT 1"), heartbeatTimeoutMs);
        } catch (error) {
          lost(connection, error);
        }
      };

      const open = async () => {
        if (stopped) return;
        let connection: PgListenConnection | undefined;
        try {
          connection = await connect();
          connection.on("notification", onNotification);
          connection.on("error", onConnectionError);
          connection.on("end", onEnd);
          await withTimeout(connection.query(`LISTEN ${quoted}`), heartbeatTimeoutMs);
        } catch (error) {
          if (connection) letGo(connection);
          onError(error);
          retry();
          return;
        }
        if (stopped) {
          letGo(connection);
          return;
        }
        current = connection;
        failures = 0;
        if (heartbeatIntervalMs > 0) {
          heartbeatTimer = setInterval(heartbeat, heartbeatIntervalMs);
          unref(heartbeatTimer);
        }
        onState("live");
      };

      void open();

      return async () => {
        stopped = true;
        clearTimeout(retryTimer);
        clearInterval(heartbeatTimer);
        const connection = current;
        current = undefined;
        if (!connection) return;
        await withTimeout(connection.query(`UNLISTEN ${quoted}`), heartbeatTimeoutMs).catch(
          () => {},
        );
        letGo(connection);
      };
    },
  };
}

function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}

/** `work`, or a rejection once `ms` have passed without an answer. */
async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`No answer from PostgreSQL within ${ms} ms`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
