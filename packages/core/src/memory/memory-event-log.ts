import type { StoredEvent } from "../event-model/event.js";
import { matchesQuery, newestEventFirst } from "../event-model/event-order.js";
import type { EventLog } from "../storage/event-log.js";

/** Told, in the same synchronous step, of each event the memory log stores and of those it prunes. */
export interface MemoryEventWatcher {
  added(event: StoredEvent): void;
  pruned(eventIds: ReadonlySet<string>): void;
}

/** The memory key store's event log; see `memoryEventLog`. */
export interface MemoryEventLog extends EventLog {
  /** Stores events; called by the key store in the same synchronous step as their change. */
  record(events: readonly StoredEvent[]): void;
  /** A stored event by id, while it is kept. */
  eventById(id: string): StoredEvent | undefined;
  /**
   * Tells `watcher` of every event already stored, in the order stored, then of each one stored
   * or pruned from now on, in the same synchronous step (the memory webhook outbox is built on it).
   */
  watch(watcher: MemoryEventWatcher): void;
  snapshot(): StoredEvent[];
}

/**
 * The memory key store's events. `record` is called by the key store inside the same synchronous
 * step as its change, so a change and its events are never seen apart. Each event is copied and
 * frozen on the way in, like key records. A watcher (the webhook outbox, when `webhooks()` is
 * listed) hears each stored event in that same step.
 */
export function memoryEventLog(): MemoryEventLog {
  let events: StoredEvent[] = [];
  const byId = new Map<string, StoredEvent>();
  const watchers: MemoryEventWatcher[] = [];
  /** Once-key → until when it is held. */
  const onceMarkers = new Map<string, number>();
  const record = (added: readonly StoredEvent[]) => {
    for (const event of added) {
      const stored = deepFreeze(structuredClone(event));
      events.push(stored);
      byId.set(stored.id, stored);
      for (const watcher of watchers) watcher.added(stored);
    }
  };
  return {
    record,
    eventById: (id) => byId.get(id),
    watch(watcher) {
      for (const event of events) watcher.added(event);
      watchers.push(watcher);
    },

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
      for (const watcher of watchers) watcher.pruned(gone);
      events = kept;
      for (const [key, until] of onceMarkers) if (until < before) onceMarkers.delete(key);
      return gone.size;
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
