/**
 * The events the PostgreSQL key store writes with its changes (in the change's transaction, see
 * `postgresKeyStore`), read back newest first and pruned in batches.
 */
import type { EventLog, StoredEvent } from "@keyward/core";
import { type PostgresClient, queryRows } from "../client.js";
import { epochMsParam, fromEpochMs } from "../schema/epoch-ms.js";
import type { Naming } from "../schema/naming.js";
import { postgresWebhookOutbox } from "../webhooks/postgres-webhook-outbox.js";
import { type EventRow, eventColumns, eventsParam, toStoredEvent } from "./event-row.js";

/** Rows one prune statement deletes at most: short statements, short locks, a busy table. */
const pruneBatch = 1_000;

export function postgresEventLog(client: PostgresClient, naming: Naming): EventLog {
  const events = naming.tables.events;
  const sql = {
    // Optional filters as NULL-able parameters: one statement for every combination.
    list: `SELECT ${eventColumns} FROM ${events}
      WHERE owner_id = $1 AND owner_type = $2
        AND ($3::text IS NULL OR key_id = $3)
        AND ($4::text IS NULL OR type IN (SELECT jsonb_array_elements_text($4::text::jsonb)))
        AND ($5::bigint IS NULL OR (occurred_at, id) < (${fromEpochMs("$5")}, $6))
      ORDER BY occurred_at DESC, id DESC LIMIT $7`,
    // The count as a row: drivers disagree on where a DELETE's row count goes.
    prune: `WITH pruned AS (
        DELETE FROM ${events} WHERE id IN (
          SELECT id FROM ${events} WHERE occurred_at < ${fromEpochMs("$1")} LIMIT ${pruneBatch})
        RETURNING 1)
      SELECT count(*)::float8 AS pruned FROM pruned`,
  };

  return {
    async list(query) {
      const rows = await queryRows<EventRow>(client, sql.list, [
        query.owner.id,
        query.owner.type,
        query.keyId ?? null,
        query.types === undefined ? null : JSON.stringify(query.types),
        query.after ? epochMsParam(query.after.occurredAt, "after.occurredAt") : null,
        query.after?.id ?? null,
        query.limit,
      ]);
      return rows.map(toStoredEvent);
    },

    outbox: postgresWebhookOutbox(client, naming),

    async prune(before) {
      let pruned = 0;
      for (;;) {
        const [row] = await queryRows<{ pruned: number | string }>(client, sql.prune, [
          epochMsParam(before, "before"),
        ]);
        const deleted = Number(row?.pruned ?? 0);
        pruned += deleted;
        if (deleted < pruneBatch) return pruned;
      }
    },
  };
}

/** The INSERT of a change's events, run in the change's transaction. */
export function insertEventsSql({ tables }: Naming): string {
  return `INSERT INTO ${tables.events}
      (id, type, occurred_at, owner_type, owner_id, key_id, actor, data)
    SELECT e.id, e.type, ${fromEpochMs("e.occurred_at")}, e.owner_type, e.owner_id, e.key_id,
      e.actor, e.data
    FROM jsonb_to_recordset($1::text::jsonb) AS e(id text, type text, occurred_at bigint,
      owner_type text, owner_id text, key_id text, actor jsonb, data jsonb)`;
}

export async function insertEvents(
  transaction: PostgresClient,
  statement: string,
  events: readonly StoredEvent[],
): Promise<void> {
  await transaction.query(statement, [eventsParam(events)]);
}
