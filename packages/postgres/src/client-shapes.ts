/**
 * The shapes of driver a store accepts, apart from the code that uses them, so that the connection
 * handling (`faults/pooled-connection.ts`) and `client.ts` both depend on them and not on each other.
 */

/** Anything that runs one SQL statement with `$1`-style parameters and resolves to its rows. */
export interface PostgresClient {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * A client that can run work inside one transaction, on one connection. PGlite has it; the
 * postgres.js adapter adds it. For `pg` pools the store uses `connect()` instead (see
 * `inTransaction`).
 */
export interface TransactionalClient extends PostgresClient {
  transaction<T>(work: (transaction: PostgresClient) => Promise<T>): Promise<T>;
}

/** A `pg`-compatible pool (`pg.Pool`, Neon's `Pool`): hands out one connection at a time. */
export interface PoolLike extends PostgresClient {
  connect(): Promise<PostgresClient & { release(destroy?: boolean | Error): void }>;
  readonly idleCount: number;
}
