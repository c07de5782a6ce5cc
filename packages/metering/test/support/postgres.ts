/** The test PostgreSQL (127.0.0.1:5432, trust auth) and a fresh schema per use. */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const databaseUrl =
  process.env.KEYWARD_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export function testPool(max = 4): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max });
  pool.on("error", () => {});
  return pool;
}

export function uniqueSchema(label: string): string {
  return `kw_meter_${label}_${randomBytes(4).toString("hex")}`;
}

export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
