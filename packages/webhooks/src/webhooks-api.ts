/**
 * `keyward.webhooks`: the operator's view of webhook deliveries (no HTTP endpoint: deliveries span
 * every user, so they are for the host's own code, admin tools and cron jobs).
 */
import type { StoredWebhookDelivery, WebhookDeliveryStatus, WebhookOutbox } from "@keyward/core";
import {
  decodeListCursor,
  internalError,
  isEndpointId,
  isWebhookDeliveryId,
  pageOf,
  parsePageSize,
} from "@keyward/core/toolkit";
import type { WebhookDeliverer, WebhookRunSummary } from "./webhook-deliverer.js";

/** A delivery as the API shows it: times in ISO 8601 UTC. */
export interface WebhookDelivery {
  /** `whd_…`: stable for one event and one endpoint. */
  id: string;
  /** The event's id, sent as the `webhook-id` header on every attempt. */
  eventId: string;
  endpointId: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  /** The HTTP status of the last answer; null when there was none (timeout, refused connection). */
  lastResponseStatus: number | null;
  /** Why the last attempt failed, e.g. `HTTP 500`, `no answer within 10000 ms`. */
  lastError: string | null;
  deliveredAt: string | null;
  /** When the event happened. */
  occurredAt: string;
}

export interface WebhookDeliveryListOptions {
  /** Only deliveries in this state, e.g. `"dead"` for the dead letters. */
  status?: WebhookDeliveryStatus;
  endpointId?: string;
  /** 1 to 1,000; default 100. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  after?: string | null;
}

export interface WebhooksApi {
  /**
   * Deliveries, newest event first, one page at a time.
   * @example
   * const { data: dead } = await keyward.webhooks.deliveries({ status: "dead" });
   */
  deliveries(
    options?: WebhookDeliveryListOptions,
  ): Promise<{ data: WebhookDelivery[]; nextCursor: string | null }>;
  /**
   * Sends a dead (or delivered) delivery again: pending, due now, attempts reset. A pending one is
   * left as it is. Resolves with the delivery, or null for an unknown id.
   */
  redeliver(deliveryId: string): Promise<WebhookDelivery | null>;
  /**
   * Dispatches new events and attempts every due delivery now, resolving when done: for tests,
   * cron jobs and scheduled Workers (`pollIntervalMs: false`).
   */
  deliverNow(): Promise<WebhookRunSummary>;
}

const defaultPageSize = 100;
const statuses: readonly WebhookDeliveryStatus[] = ["pending", "delivered", "dead"];

export function createWebhooksApi(runtime: {
  deliverer: WebhookDeliverer;
  outbox: WebhookOutbox;
  now(): number;
}): WebhooksApi {
  const running = () => {
    runtime.deliverer.start();
    return runtime;
  };
  return {
    async deliveries(options = {}) {
      const { outbox } = running();
      if (typeof options !== "object" || options === null) {
        throw new TypeError(
          "Keyward: webhooks.deliveries takes { status?, endpointId?, limit?, after? }",
        );
      }
      if (options.status !== undefined && !statuses.includes(options.status)) {
        throw new TypeError(
          `Keyward: webhooks.deliveries: \`status\` must be one of ${statuses.join(", ")}`,
        );
      }
      if (options.endpointId !== undefined && !isEndpointId(options.endpointId)) {
        throw new TypeError("Keyward: webhooks.deliveries: `endpointId` is not an endpoint id");
      }
      const limit = parsePageSize(options.limit ?? defaultPageSize);
      const position =
        options.after === undefined || options.after === null
          ? undefined
          : decodeListCursor(options.after, isWebhookDeliveryId);
      let found: StoredWebhookDelivery[];
      try {
        found = await outbox.list({
          limit: limit + 1,
          ...(options.status ? { status: options.status } : {}),
          ...(options.endpointId ? { endpointId: options.endpointId } : {}),
          ...(position ? { after: { occurredAt: position.createdAt, id: position.id } } : {}),
        });
      } catch (error) {
        throw internalError(error);
      }
      return pageOf(found, limit, toWebhookDelivery);
    },

    async redeliver(deliveryId) {
      const { outbox, deliverer, now } = running();
      if (!isWebhookDeliveryId(deliveryId)) {
        throw new TypeError("Keyward: webhooks.redeliver takes a delivery id (`whd_…`)");
      }
      let delivery: StoredWebhookDelivery | undefined;
      try {
        delivery = await outbox.redeliver(deliveryId, now());
      } catch (error) {
        throw internalError(error);
      }
      if (delivery) deliverer.nudge();
      return delivery ? toWebhookDelivery(delivery) : null;
    },

    deliverNow: () => running().deliverer.deliverNow(),
  };
}

const iso = (time: number | null) => (time === null ? null : new Date(time).toISOString());

export function toWebhookDelivery(delivery: StoredWebhookDelivery): WebhookDelivery {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    endpointId: delivery.endpointId,
    status: delivery.status,
    attempts: delivery.attempts,
    nextAttemptAt: iso(delivery.nextAttemptAt),
    lastAttemptAt: iso(delivery.lastAttemptAt),
    lastResponseStatus: delivery.lastResponseStatus,
    lastError: delivery.lastError,
    deliveredAt: iso(delivery.deliveredAt),
    occurredAt: new Date(delivery.occurredAt).toISOString(),
  };
}
