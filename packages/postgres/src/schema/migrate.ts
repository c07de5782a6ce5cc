import { inTransaction, type PostgresClient, queryRows } from "../client.js";
import { migrations } from "./migrations.js";
import { type NamingOptions, resolveNaming } from "./naming.js";

export interface MigrationResult {
  /** Versions this call applied, in order; empty when the schema was already current. */
  applied: number[];
  /** The schema's version after the call. */
  version: number;
}

/**
 * Brings the schema up to date. Idempotent, and safe when several instances start at once: the
 * whole run holds a transaction-scoped advisory lock, so one instance applies each migration and
 * the others wait, then find nothing left to do. A failure rolls the run back whole.
 *
 * With a `pg` pool the run borrows one connection; with a single `pg.Client` nothing else may use
 * that client while it runs.
 *
 * @example
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * pool.on("error", (error) => console.warn("PostgreSQL: idle connection failed", error));
 * await migrate(pool); // at start, before serving
 */
export async function migrate(
  client: PostgresClient,
  options: NamingOptions = {},
): Promise<MigrationResult> {
  const naming = resolveNaming(options);
  const { tables } = naming;
  return inTransaction(client, async (transaction) => {
    await transaction.query("SELECT pg_advisory_xact_lock($1::int, $2::int)", [...naming.lockKey]);
    // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when it does nothing.
    const schemas = await queryRows(transaction, "SELECT 1 FROM pg_namespace WHERE nspname = $1", [
      naming.schema,
    ]);
    if (schemas.length === 0) await transaction.query(`CREATE SCHEMA ${naming.quotedSchema}`);
    await transaction.query(
      `CREATE TABLE IF NOT EXISTS ${tables.migrations} (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const done = await queryRows<{ version: number | string }>(
      transaction,
      `SELECT version FROM ${tables.migrations}`,
    );
    const versions = new Set(done.map((row) => Number(row.version)));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (versions.has(migration.version)) continue;
      for (const statement of migration.statements(naming)) await transaction.query(statement);
      await transaction.query(`INSERT INTO ${tables.migrations} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
      versions.add(migration.version);
    }
    return { applied, version: Math.max(...versions) };
  });
}
