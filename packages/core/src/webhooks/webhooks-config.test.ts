import { describe, expect, it } from "vitest";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";

const secret = `whsec_${btoa("k".repeat(32))}`;
const base = {
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" as const } } },
  jwt: false as const,
  logger: false as const,
};
const endpoint = { id: "audit", url: "https://example.com/hooks", secret };
const make = (webhooks: unknown, events: unknown = { pruneIntervalMs: false }) =>
  createKeyward({ ...base, store: memoryStore(), events, webhooks } as never);

describe("webhooks configuration", () => {
  it("is checked at start, each problem naming its option", () => {
    const cases: [unknown, RegExp][] = [
      ["yes", /`webhooks` must be an object/],
      [{}, /`webhooks.endpoints` must be an array/],
      [{ endpoints: [{ ...endpoint, id: "has space" }] }, /`webhooks.endpoints\[0\].id`/],
      [{ endpoints: [endpoint, endpoint] }, /`webhooks.endpoints\[1\].id` "audit" is used twice/],
      [{ endpoints: [{ ...endpoint, url: "ftp://x" }] }, /`webhooks.endpoints\[0\].url`/],
      [{ endpoints: [{ ...endpoint, secret: "hunter2" }] }, /`webhooks.endpoints\[0\].secret`/],
      [
        { endpoints: [{ ...endpoint, types: ["key.nope"] }] },
        /`webhooks.endpoints\[0\].types`.*"key.nope"/,
      ],
      [{ endpoints: [{ ...endpoint, types: [] }] }, /`webhooks.endpoints\[0\].types`/],
      [{ endpoints: [endpoint], maxAttempts: 0 }, /`webhooks.maxAttempts`/],
      [{ endpoints: [endpoint], backoff: { initialMs: -1 } }, /`webhooks.backoff.initialMs`/],
      [{ endpoints: [endpoint], backoff: { maxMs: 0 } }, /`webhooks.backoff.maxMs`/],
      [{ endpoints: [endpoint], backoff: { initialMs: 10, maxMs: 5 } }, /must not exceed/],
      [{ endpoints: [endpoint], timeoutMs: 0 }, /`webhooks.timeoutMs`/],
      [{ endpoints: [endpoint], pollIntervalMs: "1s" }, /`webhooks.pollIntervalMs`/],
      [{ endpoints: [endpoint], fetch: "no" }, /`webhooks.fetch`/],
    ];
    for (const [webhooks, message] of cases) {
      expect(() => make(webhooks), JSON.stringify(webhooks)).toThrow(TypeError);
      expect(() => make(webhooks), JSON.stringify(webhooks)).toThrow(message);
    }
  });

  it("never puts a secret into an error message", () => {
    const leaked = `whsec_${btoa("s".repeat(20))}`;
    expect(() => make({ endpoints: [{ ...endpoint, secret: leaked }] })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(leaked.slice(6)) }),
    );
  });

  it("needs events", () => {
    expect(() => make({ endpoints: [endpoint] }, false)).toThrow(/configure `events` too/);
  });

  it("needs a key store whose event log has an outbox", () => {
    const store = memoryStore();
    const { outbox: _, ...log } = store.keys.events!;
    expect(() =>
      createKeyward({
        ...base,
        store: { ...store, keys: { ...store.keys, events: log } },
        events: {},
        webhooks: { endpoints: [endpoint] },
      }),
    ).toThrow(/no webhook outbox/);
  });

  it("is off by default: keyward.webhooks says how to turn it on", async () => {
    const keyward = make(undefined);
    await expect(keyward.webhooks.deliveries()).rejects.toThrow(/webhooks are not configured/);
    await keyward.close();
  });

  it("accepts a full configuration and the planned event types", async () => {
    const keyward = make({
      endpoints: [
        endpoint,
        { id: "leaks", url: "http://127.0.0.1:9/", secret, types: ["key.leaked", "key.revoked"] },
      ],
      maxAttempts: 5,
      backoff: { initialMs: 1_000, maxMs: 60_000 },
      timeoutMs: 5_000,
      pollIntervalMs: false,
    });
    expect(await keyward.webhooks.deliveries({ status: "dead" })).toEqual({
      data: [],
      nextCursor: null,
    });
    await expect(keyward.webhooks.redeliver("nope")).rejects.toThrow(TypeError);
    await keyward.close();
  });
});
