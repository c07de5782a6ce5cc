/**
 * @keyward/postgres — Keyward's keys and usage on PostgreSQL: versioned migrations, atomic
 * rotation and revocation, batched usage upserts, and a verification cache that every instance
 * empties at once through LISTEN/NOTIFY, and a failure policy (a deadline and a circuit breaker on
 * every call). Works with `pg`, Neon's `Pool`, PGlite and postgres.js.
 */
export { type CircuitBreakerOptions, StoreUnavailableError } from "@keyward/core/toolkit";
export {
  inTransaction,
  type PoolLike,
  type PostgresClient,
  type TransactionalClient,
} from "./client.js";
export type { PgListenConnection } from "./drivers/pg.js";
export type { PGliteLike } from "./drivers/pglite.js";
export {
  type PostgresJsClient,
  type PostgresJsQueryable,
  type PostgresJsSql,
  postgresJsClient,
} from "./drivers/postgres-js.js";
export {
  holdTableStatements,
  type PostgresHoldStoreOptions,
  postgresHoldStore,
} from "./holds/postgres-hold-store.js";
export type { NotificationSource } from "./invalidation/notification-source.js";
export {
  type PostgresInvalidationChannel,
  type PostgresInvalidationChannelOptions,
  postgresInvalidationChannel,
} from "./invalidation/postgres-invalidation-channel.js";
export { type PostgresStore, type PostgresStoreOptions, postgresStore } from "./postgres-store.js";
export { type MigrationResult, migrate } from "./schema/migrate.js";
export { latestVersion, type Migration, migrationStatements } from "./schema/migrations.js";
export type { NamingOptions } from "./schema/naming.js";
