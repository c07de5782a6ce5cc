/**
 * Usage counters, in the `keys` object: per key its total, last use and the fields of its latest
 * use that wrote any (`UsageIncrement.useFields`, kept unread); per key and endpoint its count; per key, endpoint and UTC day the daily detail. Totals and endpoint counts
 * are kept apart from the days, so pruning a day deletes its rows and changes nothing else.
 * Which use fields are kept is core's rule (`isLaterUse`).
 */
import type { KeyUsage, LastUse, UsageIncrement } from "@keyward/core";
import { isLaterUse, sortKeyUsage, useFieldsTimeOf } from "@keyward/core/toolkit";
import type { SqlStorage } from "./durable-object-state.js";

export const usageTableSchema = `
CREATE TABLE IF NOT EXISTS usage_keys (
  key_id TEXT PRIMARY KEY,
  total INTEGER NOT NULL,
  last_used_at INTEGER NOT NULL,
  use_fields TEXT,
  use_fields_at INTEGER
);
CREATE TABLE IF NOT EXISTS usage_endpoints (
  key_id TEXT NOT NULL, method TEXT NOT NULL, route TEXT NOT NULL, count INTEGER NOT NULL,
  PRIMARY KEY (key_id, method, route)
);
CREATE TABLE IF NOT EXISTS usage_days (
  key_id TEXT NOT NULL, day TEXT NOT NULL, count INTEGER NOT NULL,
  PRIMARY KEY (key_id, day)
);
CREATE INDEX IF NOT EXISTS usage_days_by_day ON usage_days (day);
`;

type KeyRow = {
  total: number;
  last_used_at: number;
  use_fields: string | null;
  use_fields_at: number | null;
};

export function usageTable(sql: SqlStorage) {
  return {
    record(increments: readonly UsageIncrement[]): null {
      for (const increment of increments) {
        const { keyId, method, route, day, count, lastUsedAt, useFields } = increment;
        const kept = sql
          .exec<KeyRow>(
            "SELECT total, last_used_at, use_fields, use_fields_at FROM usage_keys WHERE key_id = ?",
            keyId,
          )
          .toArray()[0];
        let fields = kept?.use_fields ?? null;
        let useFieldsAt = kept?.use_fields_at ?? null;
        if (useFields !== undefined) {
          const at = useFieldsTimeOf(increment);
          if (isLaterUse(at, useFields, useFieldsAt ?? undefined, fields ?? undefined)) {
            fields = useFields;
            useFieldsAt = at;
          }
        }
        sql.exec(
          "INSERT INTO usage_keys (key_id, total, last_used_at, use_fields, use_fields_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (key_id) DO UPDATE SET total = total + ?2, last_used_at = max(last_used_at, ?3), use_fields = ?4, use_fields_at = ?5",
          keyId,
          count,
          lastUsedAt,
          fields,
          useFieldsAt,
        );
        sql.exec(
          "INSERT INTO usage_endpoints (key_id, method, route, count) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (key_id, method, route) DO UPDATE SET count = count + ?4",
          keyId,
          method,
          route,
          count,
        );
        sql.exec(
          "INSERT INTO usage_days (key_id, day, count) VALUES (?1, ?2, ?3) ON CONFLICT (key_id, day) DO UPDATE SET count = count + ?3",
          keyId,
          day,
          count,
        );
      }
      return null;
    },

    read(keyId: string): KeyUsage {
      const kept = sql
        .exec<KeyRow>(
          "SELECT total, last_used_at, use_fields, use_fields_at FROM usage_keys WHERE key_id = ?",
          keyId,
        )
        .toArray()[0];
      if (!kept) return { keyId, totalRequests: 0, lastUsedAt: null, endpoints: [], daily: [] };
      const endpoints = sql
        .exec<{ method: string; route: string; count: number }>(
          "SELECT method, route, count FROM usage_endpoints WHERE key_id = ?",
          keyId,
        )
        .toArray()
        .map(({ method, route, count }) => ({ method, route, count }));
      const daily = sql
        .exec<{ day: string; count: number }>(
          "SELECT day, count FROM usage_days WHERE key_id = ?",
          keyId,
        )
        .toArray()
        .map(({ day, count }) => ({ date: day, count }));
      return sortKeyUsage({
        keyId,
        totalRequests: kept.total,
        lastUsedAt: kept.last_used_at,
        ...(kept.use_fields === null ? {} : { useFields: kept.use_fields }),
        endpoints,
        daily,
      });
    },

    /** As `[id, lastUse]` pairs: a `Map` does not cross the object's JSON boundary. */
    lastUsed(keyIds: readonly string[]): [string, LastUse][] {
      const found: [string, LastUse][] = [];
      for (const keyId of new Set(keyIds)) {
        const kept = sql
          .exec<KeyRow>("SELECT last_used_at, use_fields FROM usage_keys WHERE key_id = ?", keyId)
          .toArray()[0];
        if (!kept) continue;
        const at = kept.last_used_at;
        found.push([keyId, kept.use_fields === null ? { at } : { at, useFields: kept.use_fields }]);
      }
      return found;
    },

    /**
     * Removes up to `limit` key-days before `beforeDay` (a batch: the object serves nothing else
     * while a call runs, so the store calls again until a batch comes back short). Totals and
     * endpoint counts are kept apart from the days, so nothing else changes.
     */
    prune(beforeDay: string, limit: number): number {
      if (!(Number.isInteger(limit) && limit >= 1)) {
        throw new TypeError(`usage.prune: limit must be a whole number of 1 or more, got ${limit}`);
      }
      return sql.exec(
        "DELETE FROM usage_days WHERE rowid IN (SELECT rowid FROM usage_days WHERE day < ?1 LIMIT ?2)",
        beforeDay,
        limit,
      ).rowsWritten;
    },
  };
}
