import type { StoredEvent } from "../events/event.js";
import { matchesQuery, newestEventFirst } from "../events/event-order.js";
import type { EventLog } from "../storage/event-log.js";

/**
 * The memory key store's events. `append` is called by the key store inside the same synchronous
 * step as its change, so a change and its events are never seen apart. Each event is copied and
 * frozen on the way in, like key records.
 */
export function memoryEventLog(): EventLog & {
  append(events: readonly StoredEvent[]): void;
  snapshot(): StoredEvent[];
} {
  let events: StoredEvent[] = [];
  return {
    append(added) {
      for (const event of added) events.push(deepFreeze(structuredClone(event)));
    },

    async list(query) {
      const matching = events.filter((event) => matchesQuery(event, query));
      return matching.sort(newestEventFirst).slice(0, query.limit);
    },

    async prune(before) {
      const kept = events.filter((event) => event.occurredAt >= before);
      const pruned = events.length - kept.length;
      events = kept;
      return pruned;
    },

    snapshot: () => [...events],
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}
