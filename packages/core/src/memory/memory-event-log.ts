import type { StoredEvent } from "../event-model/event.js";
import { matchesQuery, newestEventFirst } from "../event-model/event-order.js";
import type { EventLog } from "../storage/event-log.js";
import { memoryWebhookOutbox } from "./memory-webhook-outbox.js";

/**
 * The memory key store's events. `record` is called by the key store inside the same synchronous
 * step as its change, so a change and its events are never seen apart. Each event is copied and
 * frozen on the way in, like key records. Each stored event is marked undispatched for the webhook
 * outbox in that same step.
 */
export function memoryEventLog(): EventLog & {
  record(events: readonly StoredEvent[]): void;
  snapshot(): StoredEvent[];
  outbox: ReturnType<typeof memoryWebhookOutbox>;
} {
  let events: StoredEvent[] = [];
  const byId = new Map<string, StoredEvent>();
  const outbox = memoryWebhookOutbox((id) => byId.get(id));
  /** Once-key → until when it is held. */
  const onceMarkers = new Map<string, number>();
  const record = (added: readonly StoredEvent[]) => {
    for (const event of added) {
      const stored = deepFreeze(structuredClone(event));
      events.push(stored);
      byId.set(stored.id, stored);
      outbox.added(stored);
    }
  };
  return {
    record,

    async append(entries, now) {
      const written: StoredEvent[] = [];
      for (const { event, once } of entries) {
        if (once) {
          const heldUntil = onceMarkers.get(once.key);
          if (heldUntil !== undefined && heldUntil > now) continue;
          onceMarkers.set(once.key, once.until);
        }
        record([event]);
        written.push(event);
      }
      return written;
    },

    async list(query) {
      const matching = events.filter((event) => matchesQuery(event, query));
      return matching.sort(newestEventFirst).slice(0, query.limit);
    },

    async prune(before) {
      const kept = events.filter((event) => event.occurredAt >= before);
      const gone = new Set(events.filter((event) => event.occurredAt < before).map((e) => e.id));
      for (const id of gone) byId.delete(id);
      outbox.pruned(gone);
      events = kept;
      for (const [key, until] of onceMarkers) if (until < before) onceMarkers.delete(key);
      return gone.size;
    },

    snapshot: () => [...events],
    outbox,
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}
