/**
 * PGlite, the embedded Postgres: one connection in the process, so LISTEN never drops and a
 * NOTIFY reaches every store built on the same instance.
 */
import type { TransactionalClient } from "../client.js";
import type { NotificationSource } from "../invalidation/notification-source.js";

/** The part of `PGlite` used here. */
export interface PGliteLike extends TransactionalClient {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  exec(query: string): Promise<unknown>;
}

export function isPGliteLike(client: unknown): client is PGliteLike {
  const candidate = client as Partial<PGliteLike> | null;
  return (
    typeof candidate?.listen === "function" &&
    typeof candidate.exec === "function" &&
    typeof candidate.transaction === "function"
  );
}

export function pgliteNotifications(
  db: PGliteLike,
  onError: (error: unknown) => void,
): NotificationSource {
  return {
    listen(channel, onPayload, onState) {
      let stopped = false;
      // PGlite folds a bare name to lowercase, so any other name goes quoted (but its UNLISTEN then
      // fails on names that need quoting: prefer the lowercase names postgresStore derives).
      const name = /^[a-z_][a-z0-9_]*$/.test(channel) ? channel : `"${channel}"`;
      const listening = db.listen(name, onPayload).then((unlisten) => {
        if (!stopped) onState("live");
        return unlisten;
      });
      listening.catch(onError);
      return async () => {
        stopped = true;
        const unlisten = await listening.catch(() => undefined);
        await unlisten?.().catch(onError);
      };
    },
  };
}
