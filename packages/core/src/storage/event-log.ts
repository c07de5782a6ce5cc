import type { EventType, StoredEvent } from "../event-model/event.js";
import type { Owner } from "../keys/owner.js";

/** Where a page of events starts: after this event in the listing order. */
export interface EventListCursor {
  occurredAt: number;
  id: string;
}

export interface EventQuery {
  /** Only this owner's events (a user and an organization with one id are different owners). */
  owner: Owner;
  /** Only events about this key. */
  keyId?: string;
  /** Only events of these types; omitted: every type. */
  types?: readonly EventType[];
  /** Only events after this position in the order (older, or as old with a smaller id). */
  after?: EventListCursor;
  /** At most this many events. */
  limit: number;
}

/**
 * An event written on its own, with no key change (a time- or usage-based event, a leak report).
 * With `once`, it is written only if no event with the same `once.key` was written before by any
 * instance, until `once.until` (ms since the epoch; the marker is kept that long, whatever the
 * events' retention): how `key.expiring` and threshold events fire once across instances.
 */
export interface AppendedEvent {
  event: StoredEvent;
  once?: { key: string; until: number };
}

/**
 * The read side of the events a key store writes with its changes (the write side is the optional
 * `events` argument of `KeyStore.create`, `rotate`, `revoke` and `update`). A key store that has
 * one promises that those methods write the events they are given in the same atomic step as the
 * change, and only when the change happens: a `rotate` that loses its compare-and-set, a second
 * `revoke`, an `update` of a revoked key and a `create` that fails write no event either.
 *
 * Contract (checked by `@keyward/testing`'s storage suite):
 * - `list` answers newest first (by `occurredAt`, then `id`, both descending), filtered as asked;
 *   events are returned as they were written.
 * - `prune(before)` deletes every event with `occurredAt < before` and resolves with how many it
 *   deleted (a store that expires events by itself may answer 0), and forgets once-markers whose
 *   `until` is before `before`. Safe to run on several instances at once.
 * - `append(entries, now)` writes each entry's event unless its `once.key` is held by a marker
 *   whose `until` is after `now`; it holds the key from then on. Atomic per entry: of any number
 *   of concurrent appends with one once-key, exactly one writes. Entries in one call with the same
 *   once-key: the first is written. Resolves with the events it wrote, in the order given.
 */
export interface EventLog {
  list(query: EventQuery): Promise<StoredEvent[]>;
  prune(before: number): Promise<number>;
  append(entries: readonly AppendedEvent[], now: number): Promise<StoredEvent[]>;
}
