/**
 * What the webhooks feature reports about its deliveries, for whoever watches them
 * (`@keyward/otel`'s `keyward.webhook.deliveries` and `keyward.webhook.backlog`). The webhooks
 * feature (a package of its own) publishes each attempt's end (`webhook.attempted`, `{ status }`)
 * and, once the instance is built, how to read the backlog (`webhook.backlog`, `{ read }`) on the
 * instance's event bus (`bus/event-bus.ts`); a watcher subscribes and tells its observer.
 */

/** How a delivery attempt ended: delivered (2xx), pending again for a retry, or dead-lettered. */
export type WebhookAttemptStatus = "delivered" | "retrying" | "dead";

/** Must not throw (a throw is swallowed: the delivery is what matters). */
export interface WebhookObserver {
  /** One delivery attempt ended. */
  attempted(status: WebhookAttemptStatus): void;
  /**
   * Given once, when the webhooks feature is installed: counts the deliveries waiting (pending),
   * up to `max` (a store query; call it when collecting, not per request).
   */
  backlog?(read: (max: number) => Promise<number>): void;
}
