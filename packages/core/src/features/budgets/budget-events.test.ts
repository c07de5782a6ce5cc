/**
 * Budget events in the audit log: with `events()` listed, `budget.threshold` and
 * `budget.exhausted` are written to the key's log (the type filter of
 * `GET {basePath}/{key_id}/events` takes them) and published on the bus once; `budget.settled`,
 * declared for the bus only, is refused by the filter, saying so. Without `budgets()` listed, the
 * filter does not know its types.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import type { KeywardEvent } from "../../event-model/event.js";
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { events } from "../events/index.js";
import { type BudgetEvent, budgets } from "./index.js";

const start = Date.parse("2026-12-06T12:00:00.000Z");
const secret = "a-test-secret-of-at-least-32-characters!";
const route = "POST /api/v1/completions";

const session = (sub: string) =>
  new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setIssuedAt(Math.floor(start / 1000))
    .setExpirationTime(Math.floor(start / 1000) + 300)
    .sign(new TextEncoder().encode(secret));

async function setup(listBudgets = true) {
  const heard: { topic: string; message: unknown }[] = [];
  const told: BudgetEvent[] = [];
  const listener: KeywardFeature<"listener"> = {
    name: "listener",
    install: ({ bus }) => {
      bus.subscribe("budget.*", (message, topic) => heard.push({ topic, message }));
      return {};
    },
  };
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "completions:write": "Write completions" },
    tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
    clock: manualClock(start),
    jwt: { secret },
    logger: false,
    features: [
      events({ pruneIntervalMs: false }),
      ...(listBudgets
        ? [
            budgets({
              perKey: { limit: 100, period: "day" },
              thresholds: [50],
              sweepInterval: false,
              onEvent: (event) => told.push(event),
            }),
          ]
        : []),
      listener,
    ],
  });
  const { key, id } = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "agent",
    scopes: ["completions:write"],
    tier: "free",
  });
  const listEvents = async (query: string) =>
    keyward.handle(
      new Request(`http://localhost/api/v1/api-keys/${id}/events${query}`, {
        headers: { authorization: `Bearer ${await session("alice")}` },
      }),
    );
  return { keyward, key, id, heard, told, listEvents };
}

/** Until the appends the spent phase made without awaiting them are written. */
async function eventually(check: () => Promise<void>) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

describe("budget events in the audit log", () => {
  it("writes budget.threshold and budget.exhausted to the key's log, filtered by ?types=, published once", async () => {
    const { keyward, key, id, heard, told, listEvents } = await setup();
    const reserve = (cost: number) =>
      keyward.budgets.reserve(`Bearer ${key}`, { scopes: ["completions:write"], route, cost });
    const first = await reserve(60);
    const second = await reserve(40);
    if (!first.ok || !second.ok) throw new Error("refused");
    await first.hold.settle(60);

    const common = {
      id: expect.stringMatching(/^evt_/),
      occurredAt: new Date(start).toISOString(),
      owner: { type: "user", id: "alice" },
      keyId: id,
      actor: { type: "system" },
    };
    const expected = [
      {
        ...common,
        type: "budget.exhausted",
        data: {
          scope: "key",
          percent: 100,
          limit: 100,
          remaining: 0,
          resetsAt: "2026-12-07T00:00:00.000Z",
        },
      },
      {
        ...common,
        type: "budget.threshold",
        data: {
          scope: "key",
          percent: 50,
          limit: 100,
          remaining: 40,
          resetsAt: "2026-12-07T00:00:00.000Z",
        },
      },
    ];
    await eventually(async () => {
      const { data } = await keyward.events.list({
        owner: "alice",
        keyId: id,
        types: ["budget.threshold", "budget.exhausted"],
      });
      // Both written in the same millisecond: the order between them is the ids'.
      expect([...data].sort((a, b) => a.type.localeCompare(b.type))).toEqual(expected);
    });

    const filtered = await listEvents("?types=budget.threshold");
    expect(filtered.status).toBe(200);
    const page = (await filtered.json()) as { data: KeywardEvent[] };
    expect(page.data).toEqual([expected[1]]);
    const all = (await (await listEvents("")).json()) as { data: KeywardEvent[] };
    // Unfiltered, they are among the key's events (beside key.created, and the credits.exhausted
    // that events() reads off the same credits layer).
    expect(all.data.map((event) => event.type)).toEqual(
      expect.arrayContaining(["budget.exhausted", "budget.threshold", "key.created"]),
    );

    // On the bus: each once, as written (the journal publishes it), and the hold's end.
    expect(heard.map(({ topic }) => topic).sort()).toEqual([
      "budget.exhausted",
      "budget.settled",
      "budget.threshold",
    ]);
    const published = heard.find(({ topic }) => topic === "budget.threshold")?.message;
    expect(published).toMatchObject({ type: "budget.threshold", keyId: id, data: { percent: 50 } });
    // The host's hook, as before.
    expect(told.map((event) => [event.type, event.percent])).toEqual([
      ["budget.threshold", 50],
      ["budget.exhausted", 100],
    ]);
    await keyward.close();
  });

  it("refuses ?types=budget.settled (bus only, saying so) and an unknown type with 422", async () => {
    const { keyward, listEvents } = await setup();
    const settled = await listEvents("?types=budget.settled");
    expect(settled.status).toBe(422);
    const body = (await settled.json()) as { detail: { loc: unknown[]; msg: string }[] };
    expect(body.detail[0]?.loc).toEqual(["query", "types", 0]);
    expect(body.detail[0]?.msg).toContain("budget.threshold");
    expect(body.detail[0]?.msg).toContain("budget.settled is published on the instance's bus only");
    const unknown = await listEvents("?types=budget.nope");
    expect(unknown.status).toBe(422);
    await keyward.close();
  });

  it("does not know the types when budgets() is not listed", async () => {
    const { keyward, listEvents } = await setup(false);
    const response = await listEvents("?types=budget.threshold");
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: { msg: string }[] };
    expect(body.detail[0]?.msg).not.toContain("budget.threshold");
    await expect(
      keyward.events.list({ owner: "alice", types: ["budget.threshold"] }),
    ).rejects.toMatchObject({ code: "validation_failed" });
    await keyward.close();
  });
});
