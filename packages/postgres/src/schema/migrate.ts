import { inTransaction, type PostgresClient, queryRows } from "../client.js";
import { latestVersion, migrations } from "./migrations.js";
import { type Naming, type NamingOptions, resolveNaming } from "./naming.js";

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
 * Refuses, changing nothing, a schema this code cannot serve: one a newer release migrated, and
 * one a pre-release build migrated (its version 1 is another schema than this code's).
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
    const done = await queryRows<{ version: number | string; name: string }>(
      transaction,
      `SELECT version, name FROM ${tables.migrations} ORDER BY version`,
    );
    const recorded = done.map((row) => ({ version: Number(row.version), name: row.name }));
    refuseUnknownSchema(recorded, naming);
    const versions = new Set(recorded.map((row) => row.version));
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

/** The name the pre-release builds gave version 1, before their migrations became "first schema". */
const preReleaseFirstMigration = "keys and usage";

/**
 * Throws when this code cannot serve the schema: a pre-release build migrated it (version 1 has
 * the pre-release name), or a newer release did (a version past this code's last).
 */
function refuseUnknownSchema(
  recorded: { version: number; name: string }[],
  { schema, tablePrefix, tables }: Naming,
): void {
  const where = `Schema "${schema}" with table prefix "${tablePrefix}"`;
  const last = Math.max(0, ...recorded.map((row) => row.version));
  if (recorded.some((row) => row.version === 1 && row.name === preReleaseFirstMigration)) {
    throw new Error(
      `${where} was migrated by a pre-release @keyward/postgres (${tables.migrations} records ` +
        `versions up to ${last}, with "${preReleaseFirstMigration}" as version 1). Those ` +
        'migrations were collapsed into version 1, "first schema", before the first release and ' +
        "cannot be upgraded in place. Its data is pre-release: drop its Keyward tables (or the " +
        "schema, if nothing else lives there) and run migrate again; to keep the rows, migrate " +
        "another schema or table prefix, copy each table's rows into the new tables (a " +
        "pre-release schema at version 13 has the same columns), then drop the old ones.",
    );
  }
  if (last > latestVersion) {
    throw new Error(
      `${where} is at schema version ${last}, newer than this @keyward/postgres knows ` +
        `(${latestVersion}): a newer release migrated it. Run that release or a later one; ` +
        "older code must not write to it.",
    );
  }
}
