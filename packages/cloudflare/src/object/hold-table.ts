/**
 * Budgets' holds (`@keyward/core/budgets`), in the `holds` object: one row per hold, the whole
 * `StoredHold` as JSON beside the columns its lookups need. The object runs one call at a time,
 * so `take` (read and delete in one synchronous step) answers a hold to exactly one caller, from
 * any isolate or location: a hold is settled, released or expired exactly once.
 */
import type { StoredHold } from "@keyward/core/budgets";
import type { SqlStorage } from "./durable-object-state.js";

export const holdTableSchema = `
CREATE TABLE IF NOT EXISTS holds (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  amount INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS holds_by_expiry ON holds (expires_at);
CREATE INDEX IF NOT EXISTS holds_by_key ON holds (key_id);
`;

export function holdTable(sql: SqlStorage) {
  return {
    /**
     * Records a hold; refused (the call throws, nothing written) when its id exists. `alarm`: the
     * object is to release it at its TTL (read by the object, `hold-expiry.ts`).
     */
    put(hold: StoredHold, _alarm?: boolean): null {
      const exists = sql.exec("SELECT 1 FROM holds WHERE id = ?", hold.id).toArray().length > 0;
      if (exists) throw new Error(`Keyward: hold ${hold.id} exists already`);
      sql.exec(
        "INSERT INTO holds (id, key_id, amount, expires_at, record) VALUES (?, ?, ?, ?, ?)",
        hold.id,
        hold.keyId,
        hold.amount,
        hold.expiresAt,
        JSON.stringify(hold),
      );
      return null;
    },

    /** Removes the hold and answers it; null when it is gone. */
    take(id: string): StoredHold | null {
      const row = sql
        .exec<{ record: string }>("SELECT record FROM holds WHERE id = ?", id)
        .toArray()[0];
      if (row === undefined) return null;
      sql.exec("DELETE FROM holds WHERE id = ?", id);
      return JSON.parse(row.record) as StoredHold;
    },

    expired(now: number, limit: number): string[] {
      return sql
        .exec<{ id: string }>(
          "SELECT id FROM holds WHERE expires_at <= ? ORDER BY expires_at LIMIT ?",
          now,
          limit,
        )
        .toArray()
        .map((row) => row.id);
    },

    heldBy(keyId: string): number {
      const row = sql
        .exec<{ held: number | null }>(
          "SELECT sum(amount) AS held FROM holds WHERE key_id = ?",
          keyId,
        )
        .toArray()[0];
      return row?.held ?? 0;
    },

    /** When the next hold expires (epoch ms), or null with none held: the object's alarm time. */
    nextExpiry(): number | null {
      const row = sql
        .exec<{ next: number | null }>("SELECT min(expires_at) AS next FROM holds")
        .toArray()[0];
      return row?.next ?? null;
    },
  };
}
