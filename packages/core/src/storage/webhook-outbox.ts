import type { StoredEvent } from "../event-model/event.js";

/**
 * Where a delivery stands.
 * - `pending`: to be sent (again) at `nextAttemptAt`; while an instance holds its lease, the lease's
 *   end is `nextAttemptAt`, so a delivery whose claimer died becomes due again by itself.
 * - `delivered`: an endpoint answered 2xx.
 * - `dead`: `maxAttempts` attempts failed; sent again only by `redeliver`.
 */
export type WebhookDeliveryStatus = "pending" | "delivered" | "dead";

/** One event for one endpoint. Times in epoch milliseconds; never a secret or a hash. */
export interface StoredWebhookDelivery {
  /** `whd_` + the event id's random part + `_` + the endpoint id (see `webhookDeliveryId`). */
  id: string;
  eventId: string;
  endpointId: string;
  /** The event's `occurredAt`: deliveries list newest first by it, then by id. */
  occurredAt: number;
  status: WebhookDeliveryStatus;
  /** Attempts started (a claim counts as one, even if its claimer died before it finished). */
  attempts: number;
  /** When it is due (pending only; null otherwise). */
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  /** The HTTP status of the last answer, null when there was none (timeout, refused connection). */
  lastResponseStatus: number | null;
  /** Why the last attempt failed, in a few words (never a response body, never a secret). */
  lastError: string | null;
  deliveredAt: number | null;
}

/** Which events go to an endpoint: every type when `types` is undefined. */
export interface WebhookRoute {
  endpointId: string;
  types?: readonly string[];
}

/** A delivery an instance holds the lease of, with the event to send. */
export interface ClaimedWebhookDelivery {
  delivery: StoredWebhookDelivery;
  event: StoredEvent;
}

/** How an attempt ended, as `settle` records it. */
export type WebhookAttemptOutcome =
  | { status: "delivered"; at: number; responseStatus: number }
  | {
      status: "pending" | "dead";
      at: number;
      /** When to try again (pending only). */
      nextAttemptAt?: number;
      responseStatus: number | null;
      error: string;
    };

export interface WebhookDeliveryQuery {
  status?: WebhookDeliveryStatus;
  endpointId?: string;
  /** Only deliveries after this position (older, or as old with a smaller id). */
  after?: { occurredAt: number; id: string };
  limit: number;
}

/**
 * The webhook outbox of an event log: which events still have to be delivered, and to whom. The
 * events themselves are the outbox's messages; a store that has one promises:
 *
 * - **Nothing is lost.** Every event the log stores (with a key change, or appended on its own) is
 *   marked undispatched in the same atomic step as the event itself, so an event can never be
 *   stored without being due for dispatch, whatever dies when. Marks are not a cursor over ids or
 *   times: an event that commits late is dispatched like any other.
 * - `dispatch(routes, limit, now)` turns up to `limit` undispatched events into one `pending` delivery
 *   per matching route (due at `now`) and clears their marks, atomically per call; safe on several
 *   instances at once (each event is dispatched once). Resolves with how many events it took.
 * - `claim({ now, leaseMs, limit, lease, endpointIds })` takes up to `limit` pending deliveries
 *   to the given endpoints due at `now` (an instance claims only what it can send: during a
 *   rolling deploy that adds an endpoint, older instances leave its deliveries to newer ones),
 *   atomically: each gets one more attempt, `nextAttemptAt = now + leaseMs`, and the `lease` token,
 *   so no other claim takes it until the lease ends. A delivery whose event was pruned is left out.
 * - `settle(id, lease, outcome)` records an attempt's end only while `lease` is still the
 *   delivery's (resolves false otherwise: the lease ran out and someone else holds it now).
 * - `list` answers newest first (by `occurredAt`, then `id`, descending), filtered as asked.
 * - `redeliver(id, now)` makes a delivered or dead delivery pending again, due now, with its
 *   attempts reset; a pending one is left as it is. Resolves with the delivery, undefined if unknown.
 * - Pruning events (`EventLog.prune`) removes their marks and their deliveries too.
 */
export interface WebhookOutbox {
  dispatch(routes: readonly WebhookRoute[], limit: number, now: number): Promise<number>;
  claim(options: {
    now: number;
    leaseMs: number;
    limit: number;
    lease: string;
    endpointIds: readonly string[];
  }): Promise<ClaimedWebhookDelivery[]>;
  settle(id: string, lease: string, outcome: WebhookAttemptOutcome): Promise<boolean>;
  list(query: WebhookDeliveryQuery): Promise<StoredWebhookDelivery[]>;
  redeliver(id: string, now: number): Promise<StoredWebhookDelivery | undefined>;
}
