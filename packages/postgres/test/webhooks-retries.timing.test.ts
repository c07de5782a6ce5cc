/**
 * Timing project (vitest.timing.config.ts): a receiver that never answers is cut off at the
 * webhook's timeoutMs, not sooner and not much later. webhooks-retries.test.ts (unit suite)
 * asserts the outcome on every store (a retry is scheduled, "no answer within 300 ms" recorded);
 * the wait is the sender's, so one store is enough here.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { webhooks } from "@keyward/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  newWebhookSecret,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./webhooks/webhook-receiver.js";

describe("webhooks: a hanging receiver, on the wall clock", () => {
  const secret = newWebhookSecret();
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(secret);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it("gives up at timeoutMs", async () => {
    receiver.answer = () => 0; // never answers
    const keyward = createKeyward({
      store: memoryStore(),
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 1_000_000, window: "1m" } } },
      jwt: false,
      features: [
        events({ pruneIntervalMs: false }),
        webhooks({
          endpoints: [{ id: "hang", url: `${receiver.url}/hang`, secret }],
          timeoutMs: 300,
          backoff: { initialMs: 60_000 },
          pollIntervalMs: false,
        }),
      ],
      logger: { error() {}, warn() {} },
    });
    await keyward.keys.create({
      ownerId: "owner-hang",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    const started = performance.now();
    const summary = await keyward.webhooks.deliverNow();
    const took = performance.now() - started;
    expect(summary).toEqual({ dispatched: 1, retrying: 1, delivered: 0, dead: 0 });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(3_000);
    await keyward.close();
  }, 15_000);
});
