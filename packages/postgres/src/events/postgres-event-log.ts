/**
 * The events the PostgreSQL key store writes with its changes (in the change's transaction, see
 * `postgresKeyStore`), read back newest first and pruned in batches.
 */
import type { AppendedEvent, EventLog, StoredEvent, WebhookOutbox } from "@keyward/core";
import { type PostgresClient, queryRows } from "../client.js";
import { epochMsParam, fromEpochMs } from "../schema/epoch-ms.js";
import type { Naming } from "../schema/naming.js";
import { postgresWebhookOutbox } from "../webhooks/postgres-webhook-outbox.js";
import { type EventRow, eventColumns, eventsParam, toStoredEvent } from "./event-row.js";

/** Rows one prune statement deletes at most: short statements, short locks, a busy table. */
const pruneBatch = 1_000;

export function postgresEventLog(
  client: PostgresClient,
  naming: Naming,
): EventLog & { outbox: WebhookOutbox } {
  const { tables } = naming;
  const events = tables.events;
  const once = tables.eventOnce;
  const sql = {
    // One statement: take each once-key that is free (new, or held until no later than now), then
    // insert the events whose key was taken or that have none. Of concurrent statements with one
    // key, the second waits on the first's row and then finds it held: exactly one writes.
    append: `WITH input AS (
        SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS e(id text, type text,
          occurred_at bigint, owner_type text, owner_id text, key_id text, actor jsonb, data jsonb,
          once_key text, once_until bigint)
      ), taken AS (
        INSERT INTO ${once} AS held (once_key, held_until)
        SELECT once_key, ${fromEpochMs("once_until")} FROM input WHERE once_key IS NOT NULL
        ON CONFLICT (once_key) DO UPDATE SET held_until = EXCLUDED.held_until
          WHERE held.held_until <= ${fromEpochMs("$2")}
        RETURNING once_key
      )
      INSERT INTO ${events} (id, type, occurred_at, owner_type, owner_id, key_id, actor, data)
      SELECT id, type, ${fromEpochMs("occurred_at")}, owner_type, owner_id, key_id, actor, data
      FROM input WHERE once_key IS NULL OR once_key IN (SELECT once_key FROM taken)
      RETURNING id`,
    pruneOnce: `DELETE FROM ${once} WHERE held_until < ${fromEpochMs("$1")}`,
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

    async append(entries, now) {
      const unique = firstPerOnceKey(entries);
      if (unique.length === 0) return [];
      const rows = await queryRows<{ id: string }>(client, sql.append, [
        appendedParam(unique),
        epochMsParam(now, "now"),
      ]);
      const written = new Set(rows.map((row) => row.id));
      return unique.flatMap(({ event }) => (written.has(event.id) ? [event] : []));
    },

    outbox: postgresWebhookOutbox(client, naming),

    async prune(before) {
      await client.query(sql.pruneOnce, [epochMsParam(before, "before")]);
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

/** Entries with a once-key already taken by an earlier entry of the same call are dropped. */
function firstPerOnceKey(entries: readonly AppendedEvent[]): AppendedEvent[] {
  const seen = new Set<string>();
  return entries.filter(({ once }) => {
    if (!once) return true;
    if (seen.has(once.key)) return false;
    seen.add(once.key);
    return true;
  });
}

function appendedParam(entries: readonly AppendedEvent[]): string {
  const rows = JSON.parse(eventsParam(entries.map(({ event }) => event))) as object[];
  return JSON.stringify(
    rows.map((row, index) => {
      const once = entries[index]!.once;
      return {
        ...row,
        once_key: once?.key ?? null,
        once_until: once ? epochMsParam(once.until, "once.until") : null,
      };
    }),
  );
}
