/**
 * LISTEN over `pg` (and anything built on it, like Neon's `Pool`): one dedicated connection, kept
 * alive by a heartbeat, reopened with backoff when it drops. Every drop is reported as
 * `"interrupted"` and every reopening as `"live"`, so caches drop what they may have missed.
 */
import { type ChannelState, StoreUnavailableError, withDeadline } from "@keyward/core/toolkit";
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
  /**
   * Opens a connected connection. Called again after the previous one dropped, unless `reconnect`
   * is false. Given `heartbeatTimeoutMs` to connect; one that connects later is closed at once.
   */
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

      /** Whether a check is still waiting for its answer: checks never pile up on the connection. */
      let beating = false;
      const heartbeat = async () => {
        const connection = current;
        if (!connection || beating) return;
        beating = true;
        try {
          await answerWithin(connection.query("SELECT 1"), heartbeatTimeoutMs, "heartbeat");
        } catch (error) {
          lost(connection, error);
        } finally {
          beating = false;
        }
      };

      const open = async () => {
        if (stopped) return;
        let connection: PgListenConnection | undefined;
        try {
          const connecting = connect();
          // A hung database must not keep the channel waiting (or retrying) forever.
          connection = await withDeadline(connecting, heartbeatTimeoutMs, () => {
            connecting.then(letGo, () => {});
            return timeout("connect", heartbeatTimeoutMs);
          });
          connection.on("notification", onNotification);
          connection.on("error", onConnectionError);
          connection.on("end", onEnd);
          await answerWithin(connection.query(`LISTEN ${quoted}`), heartbeatTimeoutMs, "LISTEN");
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
        await answerWithin(
          connection.query(`UNLISTEN ${quoted}`),
          heartbeatTimeoutMs,
          "UNLISTEN",
        ).catch(() => {});
        letGo(connection);
      };
    },
  };
}

function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}

const timeout = (what: string, ms: number) =>
  new StoreUnavailableError(
    "timeout",
    "PostgreSQL",
    `PostgreSQL did not answer the LISTEN connection's ${what} within ${ms} ms`,
  );

function answerWithin<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return withDeadline(work, ms, () => timeout(what, ms));
}
