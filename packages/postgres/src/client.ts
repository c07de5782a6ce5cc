/**
 * The one thing the store needs from a driver: run a parameterised statement and get rows back.
 * `pg`'s `Pool` and `Client`, Neon's `Pool`, and PGlite have this shape already; postgres.js gets
 * it from `postgresJsClient`. No driver is imported here, so none is a dependency.
 */

import type { PoolLike, PostgresClient, TransactionalClient } from "./client-shapes.js";
import { checkoutConnection } from "./faults/pooled-connection.js";

export type { PoolLike, PostgresClient, TransactionalClient } from "./client-shapes.js";

export function isPoolLike(client: unknown): client is PoolLike {
  const candidate = client as Partial<PoolLike> | null;
  return (
    typeof candidate?.connect === "function" &&
    typeof candidate.query === "function" &&
    typeof candidate.idleCount === "number"
  );
}

export function isTransactional(client: unknown): client is TransactionalClient {
  const candidate = client as Partial<TransactionalClient> | null;
  return typeof candidate?.transaction === "function" && typeof candidate.query === "function";
}

/**
 * Runs `work` in one transaction on one connection: a pool lends a connection for it, a
 * transactional client uses its own API, and anything else is taken to be a single connection
 * (a `pg.Client`) on which BEGIN and COMMIT are sent in turn, so nothing else may use it meanwhile.
 */
export async function inTransaction<T>(
  client: PostgresClient,
  work: (transaction: PostgresClient) => Promise<T>,
): Promise<T> {
  if (isTransactional(client)) return client.transaction(work);
  if (isPoolLike(client)) {
    const held = await checkoutConnection(client);
    let failed = false;
    try {
      return await beginCommit(held.connection, work);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // A connection whose ROLLBACK may not have run is not handed back to the pool.
      held.release(failed);
    }
  }
  return beginCommit(client, work);
}

/** BEGIN, `work`, COMMIT on one connection; ROLLBACK (best effort) if anything fails. */
export async function beginCommit<T>(
  connection: PostgresClient,
  work: (transaction: PostgresClient) => Promise<T>,
): Promise<T> {
  await connection.query("BEGIN");
  try {
    const result = await work(connection);
    await connection.query("COMMIT");
    return result;
  } catch (error) {
    await connection.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** Rows as the store's own queries shape them; the cast is checked by those queries' aliases. */
export async function queryRows<Row>(
  client: PostgresClient,
  text: string,
  params?: unknown[],
): Promise<Row[]> {
  const { rows } = await client.query(text, params);
  return rows as Row[];
}
