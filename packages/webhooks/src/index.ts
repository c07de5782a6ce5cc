/**
 * `@keyward/webhooks`: every stored event POSTed to your endpoints, signed per the Standard Webhooks
 * spec, at least once, with exponential backoff and dead letters, each attempt made by one instance
 * only. A feature module of its own package, so `standardwebhooks` reaches only the hosts that list
 * it. Needs `events()` listed too and a key store whose event log has an outbox. See
 * docs/webhooks.md.
 *
 * @example
 * import { events } from "@keyward/core/events";
 * import { webhooks } from "@keyward/webhooks";
 * const keyward = createKeyward({
 *   store, scopes, tiers, jwt,
 *   features: [events(), webhooks({ endpoints: [{ id: "audit", url, secret: process.env.WEBHOOK_SECRET! }] })],
 * });
 * const { data: dead } = await keyward.webhooks.deliveries({ status: "dead" });
 */
import type { KeywardFeature, WebhookAttemptStatus } from "@keyward/core";
import { webhookOutboxOf } from "@keyward/core/toolkit";
import { webhookDeliverer } from "./webhook-deliverer.js";
import { createWebhooksApi, type WebhooksApi } from "./webhooks-api.js";
import { checkEndpointTypes, checkWebhooksConfig, type WebhooksConfig } from "./webhooks-config.js";

export type { WebhookRunSummary } from "./webhook-deliverer.js";
export type {
  WebhookDelivery,
  WebhookDeliveryListOptions,
  WebhooksApi,
} from "./webhooks-api.js";
export type { WebhookEndpoint, WebhooksConfig } from "./webhooks-config.js";

/** Throws a `TypeError` naming the field for a malformed `config`; its secrets are never quoted. */
export function webhooks(config: WebhooksConfig): KeywardFeature<"webhooks", WebhooksApi> {
  checkWebhooksConfig(config);
  return {
    name: "webhooks",
    requiresFeatures: ["events"],
    requires: [
      {
        has: (store) => webhookOutboxOf(store) !== undefined,
        missing:
          "a store with a webhook outbox (its `outbox` part, from the same store as `keys`): memoryStore(), postgresStore() or redisStore({ keys: true })",
      },
    ],
    install({ events, store, bus, clock, random, log, keyModel }) {
      const outbox = webhookOutboxOf(store);
      // `requiresFeatures` and `requires` made sure both exist.
      if (!events || !outbox) throw new Error("unreachable: webhooks without events");
      // The kernel's types and the listed features' (`token.issued`, `budget.threshold`…).
      checkEndpointTypes(config, keyModel.eventTypes);
      const deliverer = webhookDeliverer(config, outbox, {
        clock,
        random,
        reportFailure: log.reportFailure,
        // Whoever watches deliveries (`@keyward/otel`) hears each attempt's end on the bus.
        onAttempt: (status: WebhookAttemptStatus) => bus.publish("webhook.attempted", { status }),
      });
      const pending = async (max: number) =>
        (await outbox.list({ status: "pending", limit: max })).length;
      // Each event this instance commits is delivered at once, besides the timer's polling.
      const delivered = () => {
        deliverer.start();
        deliverer.committed();
      };
      // Every type the audit log may hold, by name: a family (`budget.*`) would also hear what a
      // feature publishes on the bus only (`budget.settled`) and poll the outbox for nothing.
      const unsubscribe = keyModel.eventTypes.audited.map((type) => bus.subscribe(type, delivered));
      deliverer.start();
      return {
        // Once every feature is installed, so a watcher listed after this one hears it too.
        ready: () => bus.publish("webhook.backlog", { read: pending }),
        api: createWebhooksApi({ deliverer, outbox, now: () => clock.now() }),
        close: () => {
          for (const stop of unsubscribe) stop();
          return deliverer.close();
        },
      };
    },
  };
}
