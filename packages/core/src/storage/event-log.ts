import type { EventType, StoredEvent } from "../events/event.js";
import type { Owner } from "../organizations/owner.js";
import type { WebhookOutbox } from "./webhook-outbox.js";

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
 *   deleted (a store that expires events by itself may answer 0). Safe to run on several instances
 *   at once.
 */
export interface EventLog {
  list(query: EventQuery): Promise<StoredEvent[]>;
  prune(before: number): Promise<number>;
  /**
   * Optional: the webhook outbox (see `WebhookOutbox`). Its presence says every event this log
   * stores is marked for dispatch in the same atomic step; `webhooks` in Keyward's configuration
   * needs it.
   */
  outbox?: WebhookOutbox;
}
