/**
 * The ledger on PostgreSQL: durable, shared by every instance. One statement (an upsert adding
 * to the windows' totals) per turn of the event loop, for every request served in it
 * (addition-batcher.ts), so a request is answered only once its usage is committed. Four tables
 * in the given schema, created by `migrate()` (idempotent):
 *
 * - `keyward_meter_usage`: one row per owner, meter and window, its total;
 * - `keyward_meter_exports`: per sink and window, what the sink acknowledged and the send pending;
 * - `keyward_meter_adjustments`: usage a sink could not take;
 * - `keyward_meter_leases`: the export lease.
 *
 * Every write is one statement, atomic on its own; `prepare` and `acknowledge` are guarded by the
 * values they expect (`acknowledged`, `pending_from`), so two exporters racing after a lease
 * expired cannot freeze two different sends of a window nor count one twice.
 */
import { withDeadline } from "@keyward/core/toolkit";
import { additionBatcher } from "./addition-batcher.js";
import { checkAdditions } from "./check-additions.js";
import type { DueWindow, LedgerAddition, LedgerWindow, UsageLedger } from "./usage-ledger.js";

/** Anything that runs one SQL statement with `$1`-style parameters (`pg.Pool`, PGlite). */
export interface LedgerSqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface PostgresLedgerOptions {
  client: LedgerSqlClient;
  /** The schema the tables live in (default `public`). */
  schema?: string;
  /**
   * Every statement's deadline, in ms (default 2000, as `postgresStore`'s): past it the call fails
   * (a served request's usage is then reported lost, the export run retried) instead of holding a
   * request or the exporter on a database that does not answer. The statement itself is not
   * cancelled; `statement_timeout` on the pool's connections does that, if the host wants it.
   */
  timeoutMs?: number;
}

export interface PostgresLedger extends UsageLedger {
  /** Creates the ledger's tables where missing. */
  migrate(): Promise<void>;
}

export function postgresLedger(options: PostgresLedgerOptions): PostgresLedger {
  if (typeof options?.client?.query !== "function") {
    throw new TypeError(
      "postgresLedger: `client` must be a pg.Pool (or anything with query(text, params))",
    );
  }
  const schema = options.schema ?? "public";
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new TypeError("postgresLedger: `schema` must be a plain lowercase identifier");
  }
  const timeoutMs = options.timeoutMs ?? 2_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError("postgresLedger: `timeoutMs` must be a number of milliseconds > 0");
  }
  const withinMs = (ms: number): LedgerSqlClient => ({
    query: (text, params) =>
      withDeadline(
        options.client.query(text, params),
        ms,
        () =>
          new Error(
            `postgresLedger: no answer from PostgreSQL within ${ms} ms (${text.trim().split(/\s/, 1)[0]})`,
          ),
      ),
  });
  const client = withinMs(timeoutMs);
  // Creating tables waits on locks other instances' migrations hold: a longer deadline.
  const ddl = withinMs(Math.max(timeoutMs, 30_000));
  const usage = `"${schema}".keyward_meter_usage`;
  const exportsTable = `"${schema}".keyward_meter_exports`;
  const adjustmentsTable = `"${schema}".keyward_meter_adjustments`;
  const leases = `"${schema}".keyward_meter_leases`;

  const windowsParams = (windows: readonly LedgerWindow[]) => [
    windows.map((window) => window.ownerId),
    windows.map((window) => window.meter),
    windows.map((window) => window.windowStart),
  ];

  // One statement per turn of the event loop for every request's additions (addition-batcher.ts).
  // The rows are written in one order on every instance (ORDER BY), so two statements locking
  // the same rows take their locks in the same order and never deadlock.
  const batcher = additionBatcher(async (rows) => {
    await client.query(
      `INSERT INTO ${usage} (owner_id, meter, window_start, total)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[])
         AS added(owner_id, meter, window_start, total)
       ORDER BY owner_id, meter, window_start
       ON CONFLICT (owner_id, meter, window_start)
       DO UPDATE SET total = ${usage}.total + excluded.total`,
      [...windowsParams(rows), rows.map((row) => row.amount)],
    );
  });

  return {
    async migrate() {
      await ddl.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await ddl.query(`CREATE TABLE IF NOT EXISTS ${usage} (
        owner_id text NOT NULL,
        meter text NOT NULL,
        window_start bigint NOT NULL,
        total bigint NOT NULL,
        PRIMARY KEY (owner_id, meter, window_start)
      )`);
      await ddl.query(
        `CREATE INDEX IF NOT EXISTS keyward_meter_usage_window ON ${usage} (window_start)`,
      );
      await ddl.query(`CREATE TABLE IF NOT EXISTS ${exportsTable} (
        sink text NOT NULL,
        owner_id text NOT NULL,
        meter text NOT NULL,
        window_start bigint NOT NULL,
        acknowledged bigint NOT NULL DEFAULT 0,
        pending_from bigint,
        pending_value bigint,
        prepared_at bigint,
        PRIMARY KEY (sink, owner_id, meter, window_start)
      )`);
      await ddl.query(`CREATE TABLE IF NOT EXISTS ${adjustmentsTable} (
        id bigserial PRIMARY KEY,
        sink text NOT NULL,
        owner_id text NOT NULL,
        meter text NOT NULL,
        window_start bigint NOT NULL,
        value bigint NOT NULL,
        reason text NOT NULL,
        detail text NOT NULL,
        at bigint NOT NULL
      )`);
      await ddl.query(`CREATE TABLE IF NOT EXISTS ${leases} (
        name text PRIMARY KEY,
        holder text NOT NULL,
        until bigint NOT NULL
      )`);
    },

    async add(additions: readonly LedgerAddition[]) {
      checkAdditions(additions);
      if (additions.length === 0) return;
      await batcher.add(additions);
    },

    async due({ sink, meters, startedBefore, limit }) {
      const { rows } = await client.query(
        `SELECT u.owner_id, u.meter, u.window_start, u.total,
                COALESCE(e.acknowledged, 0) AS acknowledged,
                e.pending_from, e.pending_value, e.prepared_at
           FROM ${usage} u
           LEFT JOIN ${exportsTable} e
             ON e.sink = $1 AND e.owner_id = u.owner_id AND e.meter = u.meter
            AND e.window_start = u.window_start
          WHERE u.meter = ANY($2::text[]) AND u.window_start < $3
            AND (COALESCE(e.acknowledged, 0) < u.total OR e.pending_from IS NOT NULL)
          ORDER BY u.window_start, u.owner_id, u.meter
          LIMIT $4`,
        [sink, meters, startedBefore, limit],
      );
      return (rows as DueRow[]).map(
        (row): DueWindow => ({
          ownerId: row.owner_id,
          meter: row.meter,
          windowStart: Number(row.window_start),
          total: Number(row.total),
          acknowledged: Number(row.acknowledged),
          ...(row.pending_from === null
            ? {}
            : {
                pending: {
                  from: Number(row.pending_from),
                  value: Number(row.pending_value),
                  preparedAt: Number(row.prepared_at),
                },
              }),
        }),
      );
    },

    async prepare(sink, sends, now) {
      if (sends.length === 0) return [];
      // Frozen only where nothing is pending and the acknowledged offset is the one it was read
      // at; then every window's pending send, as stored, is read back.
      await client.query(
        `INSERT INTO ${exportsTable} AS e
           (sink, owner_id, meter, window_start, acknowledged, pending_from, pending_value, prepared_at)
         SELECT $1, owner_id, meter, window_start, 0, pending_from, pending_value, $7
           FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
             AS s(owner_id, meter, window_start, pending_from, pending_value)
         ON CONFLICT (sink, owner_id, meter, window_start) DO UPDATE
           SET pending_from = excluded.pending_from,
               pending_value = excluded.pending_value,
               prepared_at = excluded.prepared_at
         WHERE e.pending_from IS NULL AND e.acknowledged = excluded.pending_from`,
        [
          sink,
          ...windowsParams(sends),
          sends.map((send) => send.from),
          sends.map((send) => send.value),
          now,
        ],
      );
      const { rows } = await client.query(
        `SELECT e.owner_id, e.meter, e.window_start, e.pending_from, e.pending_value, e.prepared_at
           FROM ${exportsTable} e
           JOIN unnest($2::text[], $3::text[], $4::bigint[]) AS s(owner_id, meter, window_start)
             ON e.owner_id = s.owner_id AND e.meter = s.meter AND e.window_start = s.window_start
          WHERE e.sink = $1 AND e.pending_from IS NOT NULL`,
        [sink, ...windowsParams(sends)],
      );
      return (rows as DueRow[]).map((row) => ({
        ownerId: row.owner_id,
        meter: row.meter,
        windowStart: Number(row.window_start),
        from: Number(row.pending_from),
        value: Number(row.pending_value),
        preparedAt: Number(row.prepared_at),
      }));
    },

    async acknowledge(sink, sends) {
      if (sends.length === 0) return;
      await client.query(
        `UPDATE ${exportsTable} e
            SET acknowledged = e.pending_from + e.pending_value,
                pending_from = NULL, pending_value = NULL, prepared_at = NULL
           FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[])
             AS s(owner_id, meter, window_start, sent_from)
          WHERE e.sink = $1 AND e.owner_id = s.owner_id AND e.meter = s.meter
            AND e.window_start = s.window_start AND e.pending_from = s.sent_from`,
        [sink, ...windowsParams(sends), sends.map((send) => send.from)],
      );
    },

    async setAside(sink, window, now) {
      // One statement: the adjustment recorded, and its value counted as handled.
      await client.query(
        `WITH adjustment AS (
           INSERT INTO ${adjustmentsTable} (sink, owner_id, meter, window_start, value, reason, detail, at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         )
         INSERT INTO ${exportsTable} AS e (sink, owner_id, meter, window_start, acknowledged)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (sink, owner_id, meter, window_start) DO UPDATE
           SET acknowledged = e.acknowledged + excluded.acknowledged,
               pending_from = NULL, pending_value = NULL, prepared_at = NULL`,
        [
          sink,
          window.ownerId,
          window.meter,
          window.windowStart,
          window.value,
          window.reason,
          window.detail,
          now,
        ],
      );
    },

    async adjustments(sink) {
      const { rows } = await client.query(
        `SELECT sink, owner_id, meter, window_start, value, reason, detail, at
           FROM ${adjustmentsTable}
          WHERE $1::text IS NULL OR sink = $1
          ORDER BY id`,
        [sink ?? null],
      );
      return (rows as AdjustmentRow[]).map((row) => ({
        sink: row.sink,
        ownerId: row.owner_id,
        meter: row.meter,
        windowStart: Number(row.window_start),
        value: Number(row.value),
        reason: row.reason,
        detail: row.detail,
        at: Number(row.at),
      }));
    },

    async lease(name, holder, ttlMs, now) {
      const { rows } = await client.query(
        `INSERT INTO ${leases} AS l (name, holder, until) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
         WHERE l.holder = excluded.holder OR l.until <= $4
         RETURNING holder`,
        [name, holder, now + ttlMs, now],
      );
      return rows.length === 1;
    },

    async releaseLease(name, holder) {
      await client.query(`DELETE FROM ${leases} WHERE name = $1 AND holder = $2`, [name, holder]);
    },

    async totals(from, to) {
      const { rows } = await client.query(
        `SELECT owner_id, meter, SUM(total) AS total FROM ${usage}
          WHERE window_start >= $1 AND window_start < $2
          GROUP BY owner_id, meter`,
        [from, to],
      );
      return (rows as { owner_id: string; meter: string; total: string }[]).map((row) => ({
        ownerId: row.owner_id,
        meter: row.meter,
        total: Number(row.total),
      }));
    },

    async windowOf(ownerId, windowStart) {
      // The primary key's (owner_id, meter, window_start): one owner's rows, never a scan.
      const { rows } = await client.query(
        `SELECT meter, total FROM ${usage} WHERE owner_id = $1 AND window_start = $2`,
        [ownerId, windowStart],
      );
      return (rows as { meter: string; total: string }[]).map((row) => ({
        ownerId,
        meter: row.meter,
        total: Number(row.total),
      }));
    },
  };
}

interface DueRow {
  owner_id: string;
  meter: string;
  window_start: string;
  total: string;
  acknowledged: string;
  pending_from: string | null;
  pending_value: string | null;
  prepared_at: string | null;
}

interface AdjustmentRow {
  sink: string;
  owner_id: string;
  meter: string;
  window_start: string;
  value: string;
  reason: string;
  detail: string;
  at: string;
}
