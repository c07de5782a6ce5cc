import type { StoredEvent } from "@keyward/core";
import { toEpochMs } from "../schema/epoch-ms.js";

/** The select list of event queries, shaped so each driver hands back the same values. */
export const eventColumns = [
  "id",
  "type",
  `${toEpochMs("occurred_at")} AS occurred_at`,
  "owner_type",
  "owner_id",
  "key_id",
  // jsonb as text, parsed here, so no driver's JSON handling is relied on.
  "actor::text AS actor",
  "data::text AS data",
].join(", ");

export interface EventRow {
  id: string;
  type: string;
  occurred_at: number | string;
  owner_type: string;
  owner_id: string;
  key_id: string;
  actor: string;
  data: string;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    type: row.type,
    occurredAt: Number(row.occurred_at),
    owner: { type: row.owner_type === "organization" ? "organization" : "user", id: row.owner_id },
    keyId: row.key_id,
    actor: JSON.parse(row.actor),
    data: JSON.parse(row.data),
  } as StoredEvent;
}

/**
 * A change's events as one JSON parameter, read back by `jsonb_to_recordset` in one INSERT: one
 * statement whatever their number.
 */
export function eventsParam(events: readonly StoredEvent[]): string {
  return JSON.stringify(
    events.map((event) => {
      if (!Number.isSafeInteger(event.occurredAt)) {
        throw new TypeError(`occurredAt must be whole milliseconds, got ${event.occurredAt}`);
      }
      return {
        id: event.id,
        type: event.type,
        occurred_at: event.occurredAt,
        owner_type: event.owner.type,
        owner_id: event.owner.id,
        key_id: event.keyId,
        actor: event.actor,
        data: event.data,
      };
    }),
  );
}
