/**
 * Checking a connection out of a `pg`-style pool without ever leaving it unwatched. A pool takes
 * its own 'error' listener off a connection when it lends it; a connection that then fails (its
 * backend terminated, say) emits 'error' with nobody listening, which throws and ends the process.
 * So the listener here is put on in the very call in which the pool hands the connection over: with
 * a promise, it would come a microtask later, after an error that arrived in the same network
 * packet as the connection's "ready" had already been emitted (it happens under
 * `pg_terminate_backend`).
 */
import type { PoolLike, PostgresClient } from "../client-shapes.js";

type Lent = Awaited<ReturnType<PoolLike["connect"]>> & {
  on?(event: "error", listener: (error: unknown) => void): unknown;
  removeListener?(event: "error", listener: (error: unknown) => void): unknown;
};

/** `pg-pool`'s (and Neon's) other form of `connect`: the callback runs as the connection is lent. */
type CallbackConnect = (
  callback: (error: Error | undefined, connection: Lent | undefined) => void,
) => unknown;

export interface HeldConnection {
  readonly connection: PostgresClient;
  /** Whether it has been given back (or destroyed); nothing more may be sent on it. */
  readonly released: boolean;
  /** Gives it back, or destroys it if `destroy` is set or it failed while held. Only once. */
  release(destroy?: boolean): void;
}

/**
 * Lends a connection from `pool`, watched from the moment it is lent. With a `signal`: a
 * connection that arrives after the signal was aborted goes straight back (it connected, so it is
 * sound; the caller has given up on it), and one that is held when it aborts is destroyed,
 * whatever it is doing, rather than returned to the pool in an unknown state.
 */
export function checkoutConnection(pool: PoolLike, signal?: AbortSignal): Promise<HeldConnection> {
  return new Promise<HeldConnection>((resolve, reject) => {
    let taken = false;
    const take = (connection: Lent) => {
      if (taken) return;
      taken = true;
      const held = hold(connection);
      if (signal?.aborted) {
        held.release();
        reject(signal.reason);
        return;
      }
      signal?.addEventListener("abort", () => held.release(true), { once: true });
      resolve(held);
    };
    const returned = (pool.connect as unknown as CallbackConnect).call(
      pool,
      (error, connection) => {
        if (error || !connection) reject(error ?? new Error("The pool lent no connection"));
        else take(connection);
      },
    );
    // A pool that only speaks promises ignores the callback: take what its promise gives.
    if (typeof (returned as PromiseLike<Lent> | undefined)?.then === "function") {
      (returned as PromiseLike<Lent>).then(take, reject);
    }
  });
}

function hold(connection: Lent): HeldConnection {
  let released = false;
  let broken = false;
  // The connection's own error reaches whoever is using it through the failed query; this only
  // keeps the event from being unhandled, and marks the connection for destruction.
  const onError = () => {
    broken = true;
  };
  connection.on?.("error", onError);
  return {
    connection,
    get released() {
      return released;
    },
    release(destroy = false) {
      if (released) return;
      released = true;
      connection.removeListener?.("error", onError);
      connection.release(destroy || broken);
    },
  };
}
