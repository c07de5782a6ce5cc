import { compareCodeUnits } from "../storage/code-unit-order.js";
import type { StoreParts } from "../storage/index.js";
import { webhookDeliveryId } from "../storage/webhook-delivery-id.js";
import type {
  ClaimedWebhookDelivery,
  StoredWebhookDelivery,
  WebhookOutbox,
} from "../storage/webhook-outbox.js";
import type { MemoryEventLog } from "./memory-event-log.js";

/**
 * A store's webhook outbox: its `outbox` part, or, for a memory store's event log, the memory
 * outbox built on that log the first time it is asked for (one per log, shared by every instance
 * on that store); undefined for a store without one. `webhooks()` asks for it, so a memory store
 * whose host lists no webhooks never builds an outbox, nor bundles its code.
 */
export function webhookOutboxOf(
  store: Pick<StoreParts, "events" | "outbox">,
): WebhookOutbox | undefined {
  if (store.outbox !== undefined) return store.outbox;
  const log = store.events;
  return log !== undefined && isMemoryEventLog(log) ? memoryWebhookOutbox(log) : undefined;
}

const outboxes = new WeakMap<MemoryEventLog, WebhookOutbox>();

function isMemoryEventLog(log: NonNullable<StoreParts["events"]>): log is MemoryEventLog {
  const candidate = log as Partial<MemoryEventLog>;
  return typeof candidate.watch === "function" && typeof candidate.eventById === "function";
}

/**
 * The memory event log's webhook outbox. Every call is synchronous inside its promise, so a
 * dispatch or a claim cannot interleave with another; `undispatched` is filled as the event log
 * stores each event (every event stored before the outbox was built is undispatched too).
 */
export function memoryWebhookOutbox(log: MemoryEventLog): WebhookOutbox {
  const existing = outboxes.get(log);
  if (existing) return existing;
  const eventById = (id: string) => log.eventById(id);
  let undispatched: string[] = [];
  const deliveries = new Map<string, StoredWebhookDelivery & { lease: string | null }>();
  const visible = ({ lease: _, ...delivery }: StoredWebhookDelivery & { lease: string | null }) =>
    ({ ...delivery }) as StoredWebhookDelivery;

  log.watch({
    added(event) {
      undispatched.push(event.id);
    },
    pruned(eventIds) {
      undispatched = undispatched.filter((id) => !eventIds.has(id));
      for (const [id, delivery] of deliveries) {
        if (eventIds.has(delivery.eventId)) deliveries.delete(id);
      }
    },
  });

  const outbox: WebhookOutbox = {
    async dispatch(routes, limit, now) {
      const taken = undispatched.slice(0, limit);
      undispatched = undispatched.slice(taken.length);
      for (const eventId of taken) {
        const event = eventById(eventId);
        if (!event) continue;
        for (const route of routes) {
          if (route.types !== undefined && !route.types.includes(event.type)) continue;
          const id = webhookDeliveryId(event.id, route.endpointId);
          if (deliveries.has(id)) continue;
          deliveries.set(id, {
            id,
            eventId: event.id,
            endpointId: route.endpointId,
            occurredAt: event.occurredAt,
            status: "pending",
            attempts: 0,
            nextAttemptAt: now,
            lastAttemptAt: null,
            lastResponseStatus: null,
            lastError: null,
            deliveredAt: null,
            lease: null,
          });
        }
      }
      return taken.length;
    },

    async claim({ now, leaseMs, limit, lease, endpointIds }) {
      const due = [...deliveries.values()]
        .filter(
          (d) =>
            d.status === "pending" &&
            (d.nextAttemptAt ?? 0) <= now &&
            endpointIds.includes(d.endpointId),
        )
        .sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0))
        .slice(0, limit);
      const claimed: ClaimedWebhookDelivery[] = [];
      for (const delivery of due) {
        const event = eventById(delivery.eventId);
        if (!event) continue;
        delivery.attempts += 1;
        delivery.nextAttemptAt = now + leaseMs;
        delivery.lastAttemptAt = now;
        delivery.lease = lease;
        claimed.push({ delivery: visible(delivery), event });
      }
      return claimed;
    },

    async settle(id, lease, outcome) {
      const delivery = deliveries.get(id);
      if (delivery?.status !== "pending" || delivery.lease !== lease) return false;
      delivery.lease = null;
      delivery.status = outcome.status;
      delivery.lastResponseStatus = outcome.responseStatus;
      if (outcome.status === "delivered") {
        delivery.deliveredAt = outcome.at;
        delivery.nextAttemptAt = null;
        delivery.lastError = null;
      } else {
        delivery.nextAttemptAt =
          outcome.status === "pending" ? (outcome.nextAttemptAt ?? outcome.at) : null;
        delivery.lastError = outcome.error;
      }
      return true;
    },

    async list(query) {
      return [...deliveries.values()]
        .filter(
          (d) =>
            (query.status === undefined || d.status === query.status) &&
            (query.endpointId === undefined || d.endpointId === query.endpointId) &&
            (query.after === undefined ||
              d.occurredAt < query.after.occurredAt ||
              (d.occurredAt === query.after.occurredAt &&
                compareCodeUnits(d.id, query.after.id) < 0)),
        )
        .sort((a, b) => b.occurredAt - a.occurredAt || compareCodeUnits(b.id, a.id))
        .slice(0, query.limit)
        .map(visible);
    },

    async redeliver(id, now) {
      const delivery = deliveries.get(id);
      if (!delivery) return undefined;
      if (delivery.status !== "pending") {
        Object.assign(delivery, {
          status: "pending",
          attempts: 0,
          nextAttemptAt: now,
          deliveredAt: null,
          lease: null,
        });
      }
      return visible(delivery);
    },
  };
  outboxes.set(log, outbox);
  return outbox;
}
