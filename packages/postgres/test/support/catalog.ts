/**
 * The shape of a schema as the catalog holds it: tables with their columns, constraints, indexes,
 * and anything else a migration could create (functions, triggers, sequences, views, comments).
 * Two schemas built by different statements compare equal exactly when PostgreSQL sees them the
 * same, which is what the first-schema fixture pins down. Everything is read from `pg_catalog`
 * (not `information_schema`) and rendered by PostgreSQL's own `pg_get_*def` functions, in name
 * order, with the schema's name replaced by `$schema` so a dump of a unique test schema compares
 * with the committed one.
 */
import type { PostgresClient } from "../../src/index.js";

export interface CatalogDump {
  tables: {
    name: string;
    persistence: string;
    options: string[] | null;
    comment: string | null;
    columns: {
      name: string;
      type: string;
      notNull: boolean;
      default: string | null;
      collation: string | null;
      comment: string | null;
    }[];
    constraints: { name: string; type: string; definition: string }[];
    indexes: { name: string; definition: string }[];
    triggers: { name: string; definition: string }[];
  }[];
  /** Relations other than tables and their indexes: sequences, views, materialized views. */
  otherRelations: { name: string; kind: string }[];
  functions: { name: string; definition: string }[];
  types: { name: string; kind: string }[];
}

/**
 * Reads `schema`'s catalog. Every list is ordered by name (columns by position, which `SELECT *`
 * and a dump show), so the result is stable across servers and runs.
 */
export async function dumpCatalog(client: PostgresClient, schema: string): Promise<CatalogDump> {
  const rows = async <T>(sql: string, params: unknown[] = [schema]) =>
    (await client.query(sql, params)).rows as T[];

  const tables = await rows<{
    oid: number;
    name: string;
    persistence: string;
    options: string[] | null;
    comment: string | null;
  }>(
    `SELECT c.oid::int AS oid, c.relname AS name, c.relpersistence::text AS persistence,
            c.reloptions AS options, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
      ORDER BY c.relname COLLATE "C"`,
  );

  const dump: CatalogDump = { tables: [], otherRelations: [], functions: [], types: [] };
  for (const table of tables) {
    const columns = await rows<CatalogDump["tables"][number]["columns"][number]>(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
              a.attnotnull AS "notNull", pg_get_expr(d.adbin, d.adrelid) AS default,
              CASE WHEN a.attcollation = 0 THEN NULL ELSE co.collname END AS collation,
              col_description(a.attrelid, a.attnum) AS comment
         FROM pg_attribute a
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         LEFT JOIN pg_collation co ON co.oid = a.attcollation
        WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
      [table.oid],
    );
    // NOT NULL is a column's `notNull` above; PostgreSQL 18 also lists it as a constraint ('n').
    const constraints = await rows<{ name: string; type: string; definition: string }>(
      `SELECT conname AS name, contype::text AS type, pg_get_constraintdef(oid) AS definition
         FROM pg_constraint
        WHERE conrelid = $1 AND contype <> 'n'
        ORDER BY conname COLLATE "C"`,
      [table.oid],
    );
    const indexes = await rows<{ name: string; definition: string }>(
      `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS definition
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE x.indrelid = $1
        ORDER BY i.relname COLLATE "C"`,
      [table.oid],
    );
    const triggers = await rows<{ name: string; definition: string }>(
      `SELECT tgname AS name, pg_get_triggerdef(oid) AS definition
         FROM pg_trigger
        WHERE tgrelid = $1 AND NOT tgisinternal
        ORDER BY tgname COLLATE "C"`,
      [table.oid],
    );
    const { oid: _oid, ...described } = table;
    dump.tables.push({ ...described, columns, constraints, indexes, triggers });
  }

  dump.otherRelations = await rows(
    `SELECT c.relname AS name, c.relkind::text AS kind
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind NOT IN ('r', 'p', 'i', 'I', 't')
      ORDER BY c.relname COLLATE "C"`,
  );
  dump.functions = await rows(
    `SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = $1
      ORDER BY p.proname COLLATE "C", pg_get_function_identity_arguments(p.oid) COLLATE "C"`,
  );
  // Each table brings its row type (and its array type); only types a migration made are listed.
  dump.types = await rows(
    `SELECT t.typname AS name, t.typtype::text AS kind
       FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = $1 AND t.typrelid = 0 AND t.typcategory <> 'A'
      ORDER BY t.typname COLLATE "C"`,
  );
  return normalise(dump, schema);
}

/** The dump with `schema` written as `$schema`, wherever PostgreSQL printed it (quoted or not). */
function normalise(dump: CatalogDump, schema: string): CatalogDump {
  return JSON.parse(JSON.stringify(dump), (_key, value: unknown) =>
    typeof value === "string"
      ? value.replaceAll(`"${schema}".`, "$schema.").replaceAll(`${schema}.`, "$schema.")
      : value,
  ) as CatalogDump;
}
