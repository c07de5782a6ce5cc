/**
 * Holds of `@keyward/core/budgets` in PostgreSQL, shared by every instance. `take` is one
 * `DELETE … RETURNING`: of concurrent takes of one hold, on any instances, exactly one gets the
 * row, so a settle racing a release or the TTL sweep ends it exactly once.
 *
 * The table holds only holds in flight (a few minutes each), so it is the store's own: created on
 * first use (`CREATE TABLE IF NOT EXISTS`), outside the numbered migrations of the keys' schema. A
 * host that runs its schema itself runs `holdTableStatements(table)` instead and passes
 * `createTable: false`.
 */
import type { HoldStore, StoredHold } from "@keyward/core/budgets";
import { StoreUnavailableError, withDeadline } from "@keyward/core/toolkit";
import type { PostgresClient } from "../client.js";
import { queryRows } from "../client.js";

export interface PostgresHoldStoreOptions {
  client: PostgresClient;
  /** The table, schema-qualified if need be; default "keyward_holds". */
  table?: string;
  /** Whether to create the table on first use; default true. */
  createTable?: boolean;
  /**
   * Every statement's deadline, in ms (default 2000, as `postgresStore`'s): past it the call fails
   * with a `StoreUnavailableError` and the request with a 500, instead of waiting on a database
   * that does not answer. Creating the table, which waits on other instances' locks, gets 30 s.
   */
  timeoutMs?: number;
}

/** `client` with every query under a deadline of `ms`. */
function withinMs(client: PostgresClient, ms: number): PostgresClient {
  return {
    query: (text: string, params?: unknown[]) =>
      withDeadline(
        client.query(text, params),
        ms,
        () =>
          new StoreUnavailableError(
            "timeout",
            "PostgreSQL",
            `postgresHoldStore: no answer from PostgreSQL within ${ms} ms`,
          ),
      ),
  } as PostgresClient;
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

export function holdTableStatements(table = "keyward_holds"): string[] {
  if (!identifier.test(table)) {
    throw new TypeError(
      `postgresHoldStore: table must be an identifier (schema.table), got ${table}`,
    );
  }
  const index = `${table.replace(".", "_")}_expires_at`;
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
      id text COLLATE "C" PRIMARY KEY,
      key_id text COLLATE "C" NOT NULL,
      amount bigint NOT NULL CHECK (amount >= 0),
      expires_at bigint NOT NULL,
      hold jsonb NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS ${index.split(".").at(-1)} ON ${table} (expires_at)`,
  ];
}

/**
 * Runs a `CREATE … IF NOT EXISTS`. Two instances starting at once may both find the table missing:
 * PostgreSQL then refuses the later with a unique violation in its catalogue (23505, on
 * pg_type's name index) or "already exists" (42P07, 42710) once the first committed. Run again,
 * the statement finds what the other created and does nothing.
 */
async function createOnce(client: PostgresClient, statement: string): Promise<void> {
  try {
    await client.query(statement);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== "23505" && code !== "42P07" && code !== "42710") throw error;
    await client.query(statement);
  }
}

interface HoldRow {
  hold: StoredHold | string;
}

export function postgresHoldStore({
  client: given,
  table = "keyward_holds",
  createTable = true,
  timeoutMs = 2_000,
}: PostgresHoldStoreOptions): HoldStore {
  if (typeof given?.query !== "function") {
    throw new TypeError("postgresHoldStore needs a `client` with query(text, params)");
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError("postgresHoldStore: `timeoutMs` must be a number of milliseconds > 0");
  }
  const client = withinMs(given, timeoutMs);
  const ddl = withinMs(given, Math.max(timeoutMs, 30_000));
  const statements = holdTableStatements(table);
  let created: Promise<void> | undefined;
  const ready = () => {
    if (!createTable) return Promise.resolve();
    created ??= (async () => {
      for (const statement of statements) await createOnce(ddl, statement);
    })().catch((error) => {
      created = undefined;
      throw error;
    });
    return created;
  };
  const parse = (row: HoldRow): StoredHold =>
    typeof row.hold === "string" ? (JSON.parse(row.hold) as StoredHold) : row.hold;

  return {
    async put(hold) {
      await ready();
      await client.query(
        `INSERT INTO ${table} (id, key_id, amount, expires_at, hold) VALUES ($1, $2, $3, $4, $5::jsonb)`,
        [hold.id, hold.keyId, hold.amount, hold.expiresAt, JSON.stringify(hold)],
      );
    },
    async take(id) {
      await ready();
      const rows = await queryRows<HoldRow>(
        client,
        `DELETE FROM ${table} WHERE id = $1 RETURNING hold`,
        [id],
      );
      return rows[0] ? parse(rows[0]) : undefined;
    },
    async expired(now, limit) {
      await ready();
      const rows = await queryRows<{ id: string }>(
        client,
        `SELECT id FROM ${table} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2`,
        [now, limit],
      );
      return rows.map((row) => row.id);
    },
    async heldBy(keyId) {
      await ready();
      const rows = await queryRows<{ held: string | number | null }>(
        client,
        `SELECT sum(amount) AS held FROM ${table} WHERE key_id = $1`,
        [keyId],
      );
      return Number(rows[0]?.held ?? 0);
    },
  };
}
