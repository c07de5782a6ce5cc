/**
 * `UsageStore` on PostgreSQL: one row per key, endpoint and UTC day. `record` is one round trip
 * per batch, however large: the batch travels as a single JSON parameter and lands in one
 * `INSERT … ON CONFLICT DO UPDATE`, so concurrent batches add up without read-modify-write.
 *
 * Pruned days (`usage.retainDays`) are folded into a rollup row per key and endpoint whose day is
 * `'-infinity'`: totals and endpoint counts still sum every row; the daily series leaves it out.
 */
import type { KeyUsage, LastUse, UsageIncrement, UsageStore } from "@keyward/core";
import { mergeUsageIncrements, sortKeyUsage, useFieldsTimeOf } from "@keyward/core/toolkit";
import { type PostgresClient, queryRows } from "../client.js";
import { epochMsParam, fromEpochMs, toEpochMs } from "../schema/epoch-ms.js";
import type { Naming } from "../schema/naming.js";

interface ReportRow {
  method: string | null;
  route: string | null;
  day: string | null;
  count: number | string | null;
  last_used_at: number | string | null;
  /** On the total's row: the key's latest use fields. */
  use_fields: string | null;
  /** `grouping(method, route, day)`: 1 for an endpoint row, 6 for a day row, 7 for the total. */
  level: number | string;
}

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;
/** Rows one prune statement folds at most: short statements, short locks, a busy table. */
const pruneBatch = 1_000;

/**
 * Whether the use fields of `incoming` (an alias: `excluded`, `x`) replace those of `kept`: a later
 * use wins, then (the same millisecond) the greater text, as `isLaterUse` decides it; the texts
 * are ASCII and the columns `COLLATE "C"`, so `>` compares as JavaScript does.
 */
const laterUse = (incoming: string, kept: string) =>
  `${incoming}.use_fields IS NOT NULL AND (${kept}.use_fields IS NULL
    OR ${incoming}.use_fields_at > ${kept}.use_fields_at
    OR (${incoming}.use_fields_at = ${kept}.use_fields_at
      AND ${incoming}.use_fields > ${kept}.use_fields))`;

/** The two use-field columns of an upsert: the incoming row's where later, else the kept ones. */
const upsertUseFields = `use_fields = CASE WHEN ${laterUse("excluded", "u")}
            THEN excluded.use_fields ELSE u.use_fields END,
          use_fields_at = CASE WHEN ${laterUse("excluded", "u")}
            THEN excluded.use_fields_at ELSE u.use_fields_at END`;

/**
 * The latest use fields among a group's rows (those of the greatest time, then the greatest
 * text), or NULL when none has any.
 */
const latestUseFields = `(array_agg(use_fields
    ORDER BY use_fields_at DESC, use_fields DESC)
    FILTER (WHERE use_fields IS NOT NULL))[1]`;

export function postgresUsageStore(client: PostgresClient, { tables }: Naming): UsageStore {
  const usage = tables.usage;
  const sql = {
    // Rows are written in one fixed order, so two batches touching the same rows lock them in the
    // same order and cannot deadlock each other.
    // An increment without use fields (`f` and `t` absent: NULL) leaves the row's as they are.
    record: `INSERT INTO ${usage} AS u
        (key_id, method, route, day, count, last_used_at, use_fields, use_fields_at)
      SELECT k, m, r, d::date, c, ${fromEpochMs("l")}, f, ${fromEpochMs("t")}
      FROM jsonb_to_recordset($1::text::jsonb)
        AS x(k text, m text, r text, d text, c bigint, l bigint, f text, t bigint)
      ORDER BY k COLLATE "C", m COLLATE "C", r COLLATE "C", d
      ON CONFLICT (key_id, method, route, day) DO UPDATE
      SET count = u.count + excluded.count,
          last_used_at = greatest(u.last_used_at, excluded.last_used_at),
          ${upsertUseFields}`,
    // Per endpoint, per day and in total, in one pass over the key's rows.
    // The rollup row ('-infinity') counts in the totals and endpoints; its day reads as NULL.
    read: `SELECT method, route, CASE WHEN isfinite(day) THEN to_char(day, 'YYYY-MM-DD') END AS day,
        sum(count)::float8 AS count,
        ${toEpochMs("max(last_used_at)")} AS last_used_at,
        CASE WHEN grouping(method, route, day) = 7 THEN ${latestUseFields} END AS use_fields,
        grouping(method, route, day) AS level
      FROM ${usage} WHERE key_id = $1
      GROUP BY GROUPING SETS ((method, route), (day), ())`,
    lastUsed: `SELECT key_id, ${toEpochMs("max(last_used_at)")} AS last_used_at,
        ${latestUseFields} AS use_fields
      FROM ${usage} WHERE key_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::text::jsonb)))
      GROUP BY key_id`,
    // One batch, in one statement so it is atomic: take the oldest rows nobody else is pruning
    // (SKIP LOCKED: instances pruning at once take disjoint rows), delete them and add them to
    // their rollup rows. A count recorded meanwhile for a taken row waits for this statement and
    // then writes a new row, pruned next time: nothing is lost or counted twice.
    prune: `WITH taken AS (
        SELECT key_id, method, route, day FROM ${usage}
        WHERE day < $1::date AND day > '-infinity'::date
        ORDER BY day LIMIT ${pruneBatch}
        FOR UPDATE SKIP LOCKED
      ), removed AS (
        DELETE FROM ${usage} AS u USING taken
        WHERE (u.key_id, u.method, u.route, u.day) = (taken.key_id, taken.method, taken.route, taken.day)
        RETURNING u.key_id, u.method, u.route, u.count, u.last_used_at, u.use_fields,
          u.use_fields_at
      ), folded AS (
        INSERT INTO ${usage} AS u
          (key_id, method, route, day, count, last_used_at, use_fields, use_fields_at)
        SELECT key_id, method, route, '-infinity'::date, sum(count), max(last_used_at),
          ${latestUseFields}, max(use_fields_at)
        FROM removed GROUP BY key_id, method, route
        ORDER BY key_id, method, route
        ON CONFLICT (key_id, method, route, day) DO UPDATE
        SET count = u.count + excluded.count,
            last_used_at = greatest(u.last_used_at, excluded.last_used_at),
            ${upsertUseFields}
      )
      SELECT count(*)::float8 AS pruned FROM removed`,
  };

  return {
    async record(increments: readonly UsageIncrement[]) {
      if (increments.length === 0) return;
      const rows = [...mergeUsageIncrements(new Map(), increments).values()].map((increment) => {
        const { keyId, method, route, day, count, lastUsedAt, useFields } = increment;
        if (!Number.isSafeInteger(count) || count <= 0) {
          throw new TypeError(`usage count must be a positive whole number, got ${String(count)}`);
        }
        if (!dayPattern.test(day)) throw new TypeError(`usage day must be YYYY-MM-DD, got ${day}`);
        const row = {
          k: keyId,
          m: method,
          r: route,
          d: day,
          c: count,
          l: epochMsParam(lastUsedAt, "lastUsedAt"),
        };
        if (useFields === undefined) return row;
        const t = epochMsParam(useFieldsTimeOf(increment), "useFieldsAt");
        return { ...row, f: useFields, t };
      });
      await client.query(sql.record, [JSON.stringify(rows)]);
    },

    async read(keyId): Promise<KeyUsage> {
      const rows = await queryRows<ReportRow>(client, sql.read, [keyId]);
      const report: KeyUsage = {
        keyId,
        totalRequests: 0,
        lastUsedAt: null,
        endpoints: [],
        daily: [],
      };
      for (const row of rows) {
        const count = Number(row.count ?? 0);
        const level = Number(row.level);
        if (level === 1) report.endpoints.push({ method: row.method!, route: row.route!, count });
        else if (level === 6) {
          if (row.day !== null) report.daily.push({ date: row.day, count });
        } else if (level === 7) {
          report.totalRequests = count;
          report.lastUsedAt = row.last_used_at === null ? null : Number(row.last_used_at);
          if (row.use_fields !== null) report.useFields = row.use_fields;
        }
      }
      // Sorted here rather than in SQL: JavaScript's comparison is the contract's code-unit order.
      return sortKeyUsage(report);
    },

    async lastUsed(keyIds) {
      const result = new Map<string, LastUse>();
      if (keyIds.length === 0) return result;
      const rows = await queryRows<{
        key_id: string;
        last_used_at: number | string;
        use_fields: string | null;
      }>(client, sql.lastUsed, [JSON.stringify(keyIds)]);
      for (const row of rows) {
        const at = Number(row.last_used_at);
        const useFields = row.use_fields;
        result.set(row.key_id, useFields === null ? { at } : { at, useFields });
      }
      return result;
    },

    async prune(beforeDay) {
      if (!dayPattern.test(beforeDay)) {
        throw new TypeError(`usage prune day must be YYYY-MM-DD, got ${beforeDay}`);
      }
      let pruned = 0;
      for (;;) {
        const [row] = await queryRows<{ pruned: number | string }>(client, sql.prune, [beforeDay]);
        const removed = Number(row?.pruned ?? 0);
        pruned += removed;
        // A short batch: nothing older is left (or another instance holds the rest).
        if (removed < pruneBatch) return pruned;
      }
    },
  };
}
