/**
 * What the webhooks feature reports about its deliveries, for whoever watches them
 * (`@keyward/otel`'s `keyward.webhook.deliveries` and `keyward.webhook.backlog`). A feature lists
 * observers at the kernel's `webhookObservers` point; the webhooks feature (a package of its own)
 * finds them on its kernel's context and tells them each attempt's end, and how to read the backlog.
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
