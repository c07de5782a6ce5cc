/** The order and filters `EventLog.list` promises, kept in one place for the stores that sort in memory. */

import { compareCodeUnits } from "../storage/code-unit-order.js";
import type { EventListCursor, EventQuery } from "../storage/event-log.js";
import type { StoredEvent } from "./event.js";

/** The audit log's order: newest first, by `occurredAt`, then `id`, both descending. */
export function newestEventFirst(a: EventListCursor, b: EventListCursor): number {
  return b.occurredAt - a.occurredAt || compareCodeUnits(b.id, a.id);
}

/** Whether `event` passes a query's filters and comes after its cursor. */
export function matchesQuery(event: StoredEvent, query: EventQuery): boolean {
  if (event.owner.type !== query.owner.type || event.owner.id !== query.owner.id) return false;
  if (query.keyId !== undefined && event.keyId !== query.keyId) return false;
  if (query.types !== undefined && !query.types.includes(event.type)) return false;
  return query.after === undefined || newestEventFirst(event, query.after) > 0;
}
