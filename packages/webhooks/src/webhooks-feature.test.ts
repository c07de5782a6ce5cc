import { createKeyward, memoryStore } from "@keyward/core";
import { type EventsConfig, events } from "@keyward/core/events";
import { imports } from "@keyward/core/imports";
import { describe, expect, expectTypeOf, it } from "vitest";
import { webhooks } from "./index.js";

const secret = `whsec_${btoa("k".repeat(32))}`;
const base = {
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" as const } } },
  jwt: false as const,
  logger: false as const,
};
const endpoint = { id: "audit", url: "https://example.com/hooks", secret };
/** An instance listing `webhooks(config)`, and `events(eventsConfig)` unless it is false. */
const make = (config: unknown, eventsConfig: EventsConfig | false = { pruneIntervalMs: false }) =>
  createKeyward({
    ...base,
    store: memoryStore(),
    features: [
      ...(eventsConfig === false ? [] : [events(eventsConfig)]),
      webhooks(config as never),
    ],
  });

describe("webhooks(): the feature", () => {
  it("checks its configuration when it is called, each problem naming its field", () => {
    const cases: [unknown, RegExp][] = [
      ["yes", /`webhooks\(config\)` takes an object/],
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
    for (const [config, message] of cases) {
      expect(() => webhooks(config as never), JSON.stringify(config)).toThrow(TypeError);
      expect(() => webhooks(config as never), JSON.stringify(config)).toThrow(message);
    }
  });

  it("never puts a secret into an error message", () => {
    const leaked = `whsec_${btoa("s".repeat(20))}`;
    expect(() => webhooks({ endpoints: [{ ...endpoint, secret: leaked }] })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(leaked.slice(6)) }),
    );
  });

  it("needs events", () => {
    expect(() => make({ endpoints: [endpoint] }, false)).toThrow(
      /the feature `webhooks` needs the feature `events` listed in `features` too/,
    );
  });

  it("needs a store with a webhook outbox", () => {
    // An event log that cannot carry an outbox: the memory log's reads and writes alone.
    const { events: log, ...parts } = memoryStore();
    const store = { ...parts, events: { list: log.list, append: log.append, prune: log.prune } };
    expect(() =>
      createKeyward({
        ...base,
        store,
        features: [events(), webhooks({ endpoints: [endpoint] })],
      }),
    ).toThrow(/the feature `webhooks` needs a store with a webhook outbox/);
  });

  it("puts keyward.webhooks on the instance only when listed", async () => {
    const plain = createKeyward({ ...base, store: memoryStore(), features: [events()] });
    expectTypeOf(plain).not.toHaveProperty("webhooks");
    expect("webhooks" in plain).toBe(false);
    const listed = make({ endpoints: [endpoint], pollIntervalMs: false });
    expectTypeOf(listed.webhooks.deliverNow).returns.resolves.toHaveProperty("delivered");
    expect(await listed.webhooks.deliverNow()).toMatchObject({ delivered: 0 });
    await listed.close();
    await plain.close();
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

describe("webhooks(): imported keys", () => {
  it("delivers key.imported for each key an import creates, to an endpoint subscribed to it", async () => {
    const posted: { type: string; body: string }[] = [];
    const keyward = createKeyward({
      ...base,
      store: memoryStore(),
      features: [
        events({ pruneIntervalMs: false }),
        imports(),
        webhooks({
          endpoints: [{ ...endpoint, types: ["key.imported"] }],
          fetch: async (_url, init) => {
            const body = String(init?.body);
            posted.push({ type: (JSON.parse(body) as { type: string }).type, body });
            return new Response(null, { status: 204 });
          },
        }),
      ],
    });
    const report = await keyward.imports.importKeys([
      { key: `ba_${"x".repeat(40)}`, owner: "alice", tier: "free" },
    ]);
    expect(report.imported).toBe(1);
    await keyward.webhooks.deliverNow();
    expect(posted.map((delivery) => delivery.type)).toEqual(["key.imported"]);
    expect(posted[0]?.body).toContain(report.importedIds[0]);
    await keyward.close();
  });
});
