/**
 * The event log and its webhook outbox, in the `keys` object beside the key records, so a change
 * and its events are written in one synchronous step, and every stored event is marked
 * undispatched in that same step (`undispatched = 1`). Orders and filters are core's
 * (`newestEventFirst`, `matchesQuery`), applied to rows the indexes narrow down.
 */
import type {
  AppendedEvent,
  ClaimedWebhookDelivery,
  EventQuery,
  StoredEvent,
  StoredWebhookDelivery,
  WebhookAttemptOutcome,
  WebhookDeliveryQuery,
  WebhookRoute,
} from "@keyward/core";
import {
  compareCodeUnits,
  matchesQuery,
  ownerLabel,
  webhookDeliveryId,
} from "@keyward/core/toolkit";
import type { SqlStorage } from "./durable-object-state.js";

export const eventTableSchema = `
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  occurred_at INTEGER NOT NULL,
  undispatched INTEGER NOT NULL,
  event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_owner ON events (owner, occurred_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS events_by_time ON events (occurred_at);
CREATE INDEX IF NOT EXISTS events_undispatched ON events (seq) WHERE undispatched = 1;
CREATE TABLE IF NOT EXISTS once_markers (key TEXT PRIMARY KEY, until INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  occurred_at INTEGER NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at INTEGER,
  last_attempt_at INTEGER,
  last_response_status INTEGER,
  last_error TEXT,
  delivered_at INTEGER,
  lease TEXT
);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS deliveries_by_event ON deliveries (event_id);
`;

type DeliveryRow = {
  id: string;
  event_id: string;
  endpoint_id: string;
  occurred_at: number;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: number | null;
};

const deliveryOf = (row: DeliveryRow): StoredWebhookDelivery => ({
  id: row.id,
  eventId: row.event_id,
  endpointId: row.endpoint_id,
  occurredAt: row.occurred_at,
  status: row.status as StoredWebhookDelivery["status"],
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastAttemptAt: row.last_attempt_at,
  lastResponseStatus: row.last_response_status,
  lastError: row.last_error,
  deliveredAt: row.delivered_at,
});

const deliveryColumns =
  "id, event_id, endpoint_id, occurred_at, status, attempts, next_attempt_at, last_attempt_at, last_response_status, last_error, delivered_at";

export function eventTable(sql: SqlStorage) {
  const eventById = (id: string): StoredEvent | undefined => {
    const row = sql
      .exec<{ event: string }>("SELECT event FROM events WHERE id = ?", id)
      .toArray()[0];
    return row === undefined ? undefined : (JSON.parse(row.event) as StoredEvent);
  };

  const record = (events: readonly StoredEvent[] | undefined) => {
    for (const event of events ?? []) {
      sql.exec(
        "INSERT INTO events (id, owner, occurred_at, undispatched, event) VALUES (?, ?, ?, 1, ?)",
        event.id,
        ownerLabel(event.owner),
        event.occurredAt,
        JSON.stringify(event),
      );
    }
  };

  return {
    record,

    list(query: EventQuery): StoredEvent[] {
      const found: StoredEvent[] = [];
      const rows = sql.exec<{ event: string }>(
        "SELECT event FROM events WHERE owner = ? AND occurred_at <= ? ORDER BY occurred_at DESC, id DESC",
        ownerLabel(query.owner),
        query.after?.occurredAt ?? Number.MAX_SAFE_INTEGER,
      );
      for (const row of rows) {
        const event = JSON.parse(row.event) as StoredEvent;
        if (!matchesQuery(event, query)) continue;
        found.push(event);
        if (found.length >= query.limit) break;
      }
      return found;
    },

    /**
     * Removes up to `limit` events before `before`, with their deliveries (a batch: the object
     * serves nothing else while a call runs, so the store calls again until a batch comes back
     * short), and the once-markers that ended before it.
     */
    prune(before: number, limit: number): number {
      if (!(Number.isInteger(limit) && limit >= 1)) {
        throw new TypeError(
          `events.prune: limit must be a whole number of 1 or more, got ${limit}`,
        );
      }
      // The batch (oldest first, ties by rowid), counted, then its deliveries and itself: one
      // synchronous call, so the three statements see the same rows. (`rowsWritten` would count
      // the indexes' rows too.)
      const batch =
        "SELECT rowid FROM events WHERE occurred_at < ?1 ORDER BY occurred_at, rowid LIMIT ?2";
      const count = sql
        .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM (${batch})`, before, limit)
        .toArray()[0]!.n;
      if (count > 0) {
        sql.exec(
          `DELETE FROM deliveries WHERE event_id IN (SELECT id FROM events WHERE rowid IN (${batch}))`,
          before,
          limit,
        );
        sql.exec(`DELETE FROM events WHERE rowid IN (${batch})`, before, limit);
      }
      sql.exec("DELETE FROM once_markers WHERE until < ?", before);
      return count;
    },

    append(entries: readonly AppendedEvent[], now: number): StoredEvent[] {
      const written: StoredEvent[] = [];
      for (const { event, once } of entries) {
        if (once) {
          const held = sql
            .exec<{ until: number }>("SELECT until FROM once_markers WHERE key = ?", once.key)
            .toArray()[0];
          if (held !== undefined && held.until > now) continue;
          sql.exec(
            "INSERT INTO once_markers (key, until) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET until = ?2",
            once.key,
            once.until,
          );
        }
        record([event]);
        written.push(event);
      }
      return written;
    },

    dispatch(routes: readonly WebhookRoute[], limit: number, now: number): number {
      const taken = sql
        .exec<{ seq: number; event: string }>(
          "SELECT seq, event FROM events WHERE undispatched = 1 ORDER BY seq LIMIT ?",
          limit,
        )
        .toArray();
      for (const { seq, event: text } of taken) {
        const event = JSON.parse(text) as StoredEvent;
        for (const route of routes) {
          if (route.types !== undefined && !route.types.includes(event.type)) continue;
          sql.exec(
            `INSERT INTO deliveries (${deliveryColumns}, lease) VALUES (?, ?, ?, ?, 'pending', 0, ?, NULL, NULL, NULL, NULL, NULL) ON CONFLICT (id) DO NOTHING`,
            webhookDeliveryId(event.id, route.endpointId),
            event.id,
            route.endpointId,
            event.occurredAt,
            now,
          );
        }
        sql.exec("UPDATE events SET undispatched = 0 WHERE seq = ?", seq);
      }
      return taken.length;
    },

    claim(options: {
      now: number;
      leaseMs: number;
      limit: number;
      lease: string;
      endpointIds: readonly string[];
    }): ClaimedWebhookDelivery[] {
      const { now, leaseMs, limit, lease, endpointIds } = options;
      const due = sql
        .exec<DeliveryRow>(
          `SELECT ${deliveryColumns} FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id`,
          now,
        )
        .toArray();
      const claimed: ClaimedWebhookDelivery[] = [];
      for (const row of due) {
        if (claimed.length >= limit) break;
        if (!endpointIds.includes(row.endpoint_id)) continue;
        const event = eventById(row.event_id);
        if (!event) continue;
        sql.exec(
          "UPDATE deliveries SET attempts = attempts + 1, next_attempt_at = ?, last_attempt_at = ?, lease = ? WHERE id = ?",
          now + leaseMs,
          now,
          lease,
          row.id,
        );
        claimed.push({
          delivery: deliveryOf({
            ...row,
            attempts: row.attempts + 1,
            next_attempt_at: now + leaseMs,
            last_attempt_at: now,
          }),
          event,
        });
      }
      return claimed;
    },

    settle(id: string, lease: string, outcome: WebhookAttemptOutcome): boolean {
      const row = sql
        .exec<{ status: string; lease: string | null }>(
          "SELECT status, lease FROM deliveries WHERE id = ?",
          id,
        )
        .toArray()[0];
      if (row?.status !== "pending" || row.lease !== lease) return false;
      if (outcome.status === "delivered") {
        sql.exec(
          "UPDATE deliveries SET lease = NULL, status = 'delivered', last_response_status = ?, delivered_at = ?, next_attempt_at = NULL, last_error = NULL WHERE id = ?",
          outcome.responseStatus,
          outcome.at,
          id,
        );
      } else {
        sql.exec(
          "UPDATE deliveries SET lease = NULL, status = ?, last_response_status = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
          outcome.status,
          outcome.responseStatus,
          outcome.status === "pending" ? (outcome.nextAttemptAt ?? outcome.at) : null,
          outcome.error,
          id,
        );
      }
      return true;
    },

    listDeliveries(query: WebhookDeliveryQuery): StoredWebhookDelivery[] {
      const rows = sql
        .exec<DeliveryRow>(
          `SELECT ${deliveryColumns} FROM deliveries WHERE occurred_at <= ? ORDER BY occurred_at DESC, id DESC`,
          query.after?.occurredAt ?? Number.MAX_SAFE_INTEGER,
        )
        .toArray();
      const listed: StoredWebhookDelivery[] = [];
      for (const row of rows) {
        if (listed.length >= query.limit) break;
        if (query.status !== undefined && row.status !== query.status) continue;
        if (query.endpointId !== undefined && row.endpoint_id !== query.endpointId) continue;
        const { after } = query;
        if (
          after !== undefined &&
          !(row.occurred_at < after.occurredAt || compareCodeUnits(row.id, after.id) < 0)
        ) {
          continue;
        }
        listed.push(deliveryOf(row));
      }
      return listed;
    },

    redeliver(id: string, now: number): StoredWebhookDelivery | null {
      sql.exec(
        "UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, delivered_at = NULL, lease = NULL WHERE id = ? AND status != 'pending'",
        now,
        id,
      );
      const row = sql
        .exec<DeliveryRow>(`SELECT ${deliveryColumns} FROM deliveries WHERE id = ?`, id)
        .toArray()[0];
      return row === undefined ? null : deliveryOf(row);
    },
  };
}
