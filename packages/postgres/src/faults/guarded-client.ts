/**
 * The client the store's own queries go through: the user's client with every call put under the
 * store's `CallGuard` (a deadline and a circuit breaker), whatever the driver's own settings.
 *
 * A pool gets more care than the rest, because a pool can be left broken by a hung query: the
 * store checks connections out itself instead of calling `pool.query`, so that when the deadline
 * passes it can destroy the connection (`release(true)`) rather than leave it in the pool, busy or
 * in an unknown state. Each checkout and its query run under one deadline.
 */
import { type CallGuard, StoreUnavailableError, withDeadline } from "@keyward/core/toolkit";
import {
  beginCommit,
  isPoolLike,
  isTransactional,
  type PoolLike,
  type PostgresClient,
  type TransactionalClient,
} from "../client.js";
import { checkoutConnection } from "./pooled-connection.js";

export function guardedClient(
  client: PostgresClient,
  guard: CallGuard,
  timeoutMs: number,
): TransactionalClient {
  if (isPoolLike(client)) return guardedPool(client, guard);
  const query = (text: string, params?: unknown[]) =>
    guard.run(() => client.query(text, params), sqlCommand(text));
  if (isTransactional(client)) {
    return { query, transaction: guardedTransactions(client, guard, timeoutMs) };
  }
  // A single connection (a `pg.Client`): BEGIN, the statements and COMMIT each under the guard.
  // A query that hangs on it cannot be taken back; a pool is the way to be safe from that.
  return { query, transaction: (work) => beginCommit({ query }, work) };
}

function guardedPool(pool: PoolLike, guard: CallGuard): TransactionalClient {
  return {
    // The checkout and the query under one deadline; past it the connection is destroyed.
    query: (text, params) =>
      guard.run(async (signal) => {
        const held = await checkoutConnection(pool, signal);
        try {
          return await held.connection.query(text, params);
        } finally {
          held.release();
        }
      }, sqlCommand(text)),

    // The checkout is one guarded call, and every statement another, each destroying the
    // connection if it passes its deadline.
    async transaction(work) {
      const held = await guard.run((signal) => checkoutConnection(pool, signal), "checkout");
      const connection: PostgresClient = {
        query(text, params) {
          // Nothing more is sent on a connection given up, and a ROLLBACK that cannot be sent
          // is not news about the database: refused here, not counted by the guard.
          if (held.released) return Promise.reject(givenUp);
          return guard.run((signal) => {
            signal.addEventListener("abort", () => held.release(true), { once: true });
            return held.connection.query(text, params);
          }, sqlCommand(text));
        },
      };
      let failed = false;
      try {
        return await beginCommit(connection, work);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        // A connection whose ROLLBACK may not have run is not handed back to the pool.
        held.release(failed);
      }
    },
  };
}

const givenUp = new StoreUnavailableError(
  "unavailable",
  "PostgreSQL",
  "The connection was given up after a failure; the transaction did not complete",
);

/**
 * Transactions of a driver that runs them itself (PGlite, postgres.js): each statement goes
 * through the guard, and BEGIN and COMMIT, which the driver sends, must each be done within
 * `timeoutMs` too, or the transaction is given up (and rolled back if it starts after all).
 */
function guardedTransactions(
  client: TransactionalClient,
  guard: CallGuard,
  timeoutMs: number,
): TransactionalClient["transaction"] {
  const expired = (phase: string) => () =>
    new StoreUnavailableError(
      "timeout",
      "PostgreSQL",
      `PostgreSQL did not ${phase} a transaction within ${timeoutMs} ms`,
    );
  return async <T>(work: (transaction: PostgresClient) => Promise<T>): Promise<T> => {
    let begun: () => void = () => {};
    let givenUp = false;
    let finished: Promise<T> | undefined;
    const started = new Promise<void>((resolve) => {
      begun = resolve;
    });
    const running = client.transaction(async (transaction) => {
      // Begun too late: the caller was told it failed, so nothing may be written now.
      if (givenUp) throw expired("begin")();
      begun();
      finished = work({
        query: (text, params) => guard.run(() => transaction.query(text, params), sqlCommand(text)),
      });
      return finished;
    });
    try {
      await withDeadline(Promise.race([started, running]), timeoutMs, expired("begin"));
    } catch (error) {
      givenUp = true;
      running.catch(() => {});
      throw error;
    }
    // The statements have deadlines of their own; what follows the last one is the COMMIT.
    await finished?.catch(() => {});
    return withDeadline(running, timeoutMs, expired("commit"));
  };
}

/** An SQL statement's command (`SELECT`, `INSERT`…), as observers name the operation: never its values. */
function sqlCommand(text: string): string {
  const start = text.search(/\S/);
  if (start === -1) return "call";
  const end = text.slice(start).search(/[\s(;]/);
  return (end === -1 ? text.slice(start) : text.slice(start, start + end)).toUpperCase();
}
