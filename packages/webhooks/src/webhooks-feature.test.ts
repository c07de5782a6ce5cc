import { createKeyward, memoryStore } from "@keyward/core";
import { agentTokens } from "@keyward/core/agent-tokens";
import { budgets } from "@keyward/core/budgets";
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
      [{ endpoints: [{ ...endpoint, types: [7] }] }, /`webhooks.endpoints\[0\].types`.*7/],
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

  it("refuses at start a type the instance does not have, or one published on the bus only", () => {
    // Which types exist is known once the instance is built: createKeyward throws.
    expect(() => make({ endpoints: [{ ...endpoint, types: ["key.nope"] }] })).toThrow(
      /`webhooks.endpoints\[0\].types`.*"key.nope"/,
    );
    // A feature's type needs the feature listed.
    expect(() => make({ endpoints: [{ ...endpoint, types: ["token.issued"] }] })).toThrow(
      /"token.issued".*a feature's own types need that feature listed/,
    );
    expect(() =>
      createKeyward({
        ...base,
        store: memoryStore(),
        features: [
          events(),
          budgets({ sweepInterval: false }),
          webhooks({ endpoints: [{ ...endpoint, types: ["budget.threshold", "budget.settled"] }] }),
        ],
      }),
    ).toThrow(/"budget.settled" \(published on the instance's bus only, never written/);
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

describe("webhooks(): the event types features declare", () => {
  it("delivers token.issued, budget.threshold and budget.exhausted to an endpoint subscribed to them", async () => {
    const posted: { type: string; keyId: string; data: Record<string, unknown> }[] = [];
    const keyward = createKeyward({
      ...base,
      store: memoryStore(),
      features: [
        events({ pruneIntervalMs: false }),
        agentTokens(),
        budgets({ perKey: { limit: 100, period: "day" }, thresholds: [50], sweepInterval: false }),
        webhooks({
          endpoints: [
            {
              ...endpoint,
              types: ["token.issued", "budget.threshold", "budget.exhausted"],
            },
          ],
          pollIntervalMs: false,
          fetch: async (_url, init) => {
            posted.push(JSON.parse(String(init?.body)));
            return new Response(null, { status: 204 });
          },
        }),
      ],
    });
    const { key, id } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: ["profile:read"],
      tier: "free",
    });
    const exchanged = await keyward.handle(
      new Request("http://localhost/api/v1/api-keys/tokens", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ audience: "https://api.example.com/mcp" }),
      }),
    );
    expect(exchanged.status).toBe(200);
    const reserved = await keyward.budgets.reserve(`Bearer ${key}`, {
      scopes: ["profile:read"],
      route: "POST /completions",
      // The exchange was a use of the key too: it spent 1 of the budget.
      cost: 99,
    });
    if (!reserved.ok) throw new Error(`refused: ${JSON.stringify(reserved.error)}`);
    await reserved.hold.settle(99);
    // The budget events are written without being awaited by the request: until they are.
    const deadline = Date.now() + 10_000;
    while (
      (await keyward.events.list({ owner: "alice", types: ["budget.exhausted"] })).data.length === 0
    ) {
      if (Date.now() > deadline) throw new Error("budget.exhausted was never written");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await keyward.webhooks.deliverNow();
    expect(posted.map((event) => event.type).sort()).toEqual([
      "budget.exhausted",
      "budget.threshold",
      "token.issued",
    ]);
    for (const event of posted) expect(event.keyId).toBe(id);
    expect(posted.find((event) => event.type === "token.issued")?.data).toMatchObject({
      audience: "https://api.example.com/mcp",
    });
    expect(posted.find((event) => event.type === "budget.threshold")?.data).toMatchObject({
      scope: "key",
      percent: 50,
    });
    await keyward.close();
  });
});
