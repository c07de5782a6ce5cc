/**
 * The databases the tests run on: PGlite always, and a PostgreSQL server when it answers. The
 * server is `KEYWARD_TEST_DATABASE_URL` (default `postgresql://postgres@127.0.0.1:5432/keyward_test`);
 * its database is the tests' own: created here when it is missing (through the server's
 * `postgres` database), never one of yours, and inside it every test works in a schema of its
 * own (`uniqueSchema`), so two runs at once never see each other's tables. In CI an unreachable
 * server fails the run; elsewhere its tests are skipped with a notice.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { describe, it } from "vitest";
import type { PostgresClient } from "../../src/index.js";

export const defaultTestDatabaseUrl = "postgresql://postgres@127.0.0.1:5432/keyward_test";

export const serverUrl = process.env.KEYWARD_TEST_DATABASE_URL || defaultTestDatabaseUrl;

/** The tests' database, by name. */
const database = decodeURIComponent(new URL(serverUrl).pathname.slice(1)) || "postgres";

/**
 * Another database on the tests' server (`postgres`, the maintenance one, by default): for tests
 * that create a database of their own and drop it afterwards.
 */
export function serverDatabaseUrl(name = "postgres"): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/** Creates the tests' database when it is missing; another run creating it at once is fine. */
async function createDatabase(): Promise<void> {
  const admin = new pg.Client({
    connectionString: serverDatabaseUrl(),
    connectionTimeoutMillis: 10_000,
  });
  admin.on("error", () => {});
  try {
    await admin.connect();
    const quoted = `"${database.replaceAll('"', '""')}"`;
    await admin.query(`CREATE DATABASE ${quoted}`).catch((error: { code?: string }) => {
      // 42P04: it exists; 23505: another run created it in the same instant.
      if (error.code !== "42P04" && error.code !== "23505") throw error;
    });
  } finally {
    await admin.end().catch(() => {});
  }
}

async function probeServer(): Promise<string | null> {
  const attempt = async () => {
    const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("SELECT 1");
    } finally {
      await client.end().catch(() => {});
    }
  };
  try {
    await attempt().catch(async (error: { code?: string }) => {
      // 3D000: the database does not exist yet.
      if (error.code !== "3D000") throw error;
      await createDatabase();
      await attempt();
    });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const unreachable = await probeServer();
const inCi = Boolean(process.env.CI);

/**
 * `describe` for tests that need the real server: runs them when it answers; when it does not,
 * fails in CI and skips with a visible notice elsewhere.
 */
export function describeOnServer(name: string, suite: () => void): void {
  if (unreachable === null) {
    describe(name, suite);
  } else if (inCi) {
    describe(name, () => {
      it(`reaches PostgreSQL at ${serverUrl}`, () => {
        throw new Error(`PostgreSQL at ${serverUrl} is unreachable in CI: ${unreachable}`);
      });
    });
  } else {
    console.warn(
      `\n[@keyward/postgres] SKIPPED "${name}": PostgreSQL at ${serverUrl} is unreachable (${unreachable}). ` +
        "Start it, or point KEYWARD_TEST_DATABASE_URL at a server where the tests may create " +
        `their database (\`${database}\`); set CI=1 to make this a failure.\n`,
    );
    describe.skip(name, suite);
  }
}

/** A schema no other run uses; tests create their tables there and drop it at the end. */
export function uniqueSchema(label: string): string {
  const random = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36);
  return `kw_${label}_${Date.now().toString(36)}_${random}`;
}

export function serverPool(options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: serverUrl, max: 10, ...options });
  pool.on("error", () => {});
  return pool;
}

export async function dropSchema(client: PostgresClient, schema: string): Promise<void> {
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** One in-memory PGlite, started on first use and shared by a test file. */
export function sharedPGlite(): { get(): Promise<PGlite>; close(): Promise<void> } {
  let started: Promise<PGlite> | undefined;
  return {
    get: () => {
      started ??= PGlite.create();
      return started;
    },
    close: async () => {
      if (started) await (await started).close();
    },
  };
}

/**
 * `client`, with every `query` counted, those sent on connections a pool lends (`connect()`)
 * included: the store checks pooled connections out itself. Other members are passed through
 * bound to the client, so the store still sees a pool, or PGlite, and builds its LISTEN channel as
 * it would.
 */
export function countingClient<C extends PostgresClient>(
  client: C,
): { client: C; queries: string[] } {
  const queries: string[] = [];
  const counting = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(inner, property) {
        const value = Reflect.get(inner, property, inner) as unknown;
        if (property === "query") {
          return (text: string, params?: unknown[]) => {
            queries.push(text);
            return (inner as unknown as PostgresClient).query(text, params);
          };
        }
        if (property === "connect" && typeof value === "function") {
          return async () => counting(await value.call(inner));
        }
        return typeof value === "function" ? value.bind(inner) : value;
      },
    });
  return { client: counting(client), queries };
}

/** Every row of every table in `schema`, as JSON text: what a stolen backup would show. */
export async function dumpSchema(
  client: PostgresClient,
  schema: string,
): Promise<Record<string, string[]>> {
  const { rows } = await client.query(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
    [schema],
  );
  const dump: Record<string, string[]> = {};
  for (const { table_name: table } of rows as { table_name: string }[]) {
    const result = await client.query(
      `SELECT to_jsonb(t)::text AS row FROM "${schema}"."${table}" t`,
    );
    dump[table] = (result.rows as { row: string }[]).map((row) => row.row);
  }
  return dump;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` about every millisecond until it is true; resolves to the ms it took. A timer,
 * not a setImmediate spin: a spin would take a whole core from the database and the other side.
 */
export async function waitFor(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`Not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return performance.now() - started;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
