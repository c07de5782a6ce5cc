import { describe, expect, it } from "vitest";
import { eventBus } from "./event-bus.js";

describe("the event bus", () => {
  it("delivers a topic to its subscribers and to prefix subscriptions, in subscription order", () => {
    const heard: string[] = [];
    const bus = eventBus(() => {});
    bus.subscribe("key.*", (message, topic) => heard.push(`key.* ${topic} ${message}`));
    bus.subscribe("key.created", (message) => heard.push(`exact ${message}`));
    bus.subscribe("usage.*", (_message, topic) => heard.push(`usage.* ${topic}`));
    bus.publish("key.created", 1);
    bus.publish("usage.quota_exhausted", 2);
    // Neither `keys.created` nor a bare `key` is under `key.*`.
    bus.publish("keys.created", 3);
    bus.publish("key", 4);
    expect(heard).toEqual(["key.* key.created 1", "exact 1", "usage.* usage.quota_exhausted"]);
  });

  it("reports a listener that throws, and still delivers to the others", () => {
    const failures: string[] = [];
    const heard: unknown[] = [];
    const bus = eventBus((message) => failures.push(message));
    bus.subscribe("webhook.attempted", () => {
      throw new Error("boom");
    });
    bus.subscribe("webhook.attempted", (message) => heard.push(message));
    bus.publish("webhook.attempted", { status: "delivered" });
    expect(heard).toEqual([{ status: "delivered" }]);
    expect(failures).toEqual(["a subscriber to webhook.attempted failed"]);
  });

  it("stops delivering once unsubscribed", () => {
    const heard: unknown[] = [];
    const bus = eventBus(() => {});
    const stop = bus.subscribe("key.*", (message) => heard.push(message));
    bus.publish("key.revoked", 1);
    stop();
    bus.publish("key.revoked", 2);
    expect(heard).toEqual([1]);
  });
});
