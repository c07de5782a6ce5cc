/**
 * Time- and usage-based events on the memory store: where thresholds are crossed, the expiry scan's
 * lead time and timer, a failing append that never touches verification, the options' checks, and
 * limits in `key.updated`. (Two instances on one store, on memory, PostgreSQL and Redis: the
 * storage conformance suite's "time- and usage-based events" section.)
 */
import { describe, expect, it } from "vitest";
import { type Clock, type ManualClock, manualClock, systemClock } from "../../clock.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import type { LayerDecision, LimitLayer } from "../../limits/types.js";
import { memoryStore } from "../../memory/memory-store.js";
import { cryptoRandom } from "../../random.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { EventsConfig } from "./events-config.js";
import { events as eventsFeature } from "./index.js";
import { crossedUsageEvents, thresholdCount } from "./usage-events.js";

const start = Date.parse("2026-05-10T00:00:00.000Z");
const day = 86_400_000;
const scopes = { "profile:read": "Read profiles" };

const key = {
  id: "key_a",
  ownerType: "user",
  ownerId: "alice",
} as StoredKey;

const quota = (limit: number): LimitLayer => ({
  layer: "quota",
  bucket: "quota:user:alice",
  limit,
  period: "month",
});
const credits = (cost: number, refill = false): LimitLayer => ({
  layer: "credits",
  bucket: "credits:key_a",
  cost,
  remaining: 10,
  grantedAt: 5,
  ...(refill ? { refill: { amount: 10, period: "day" as const } } : {}),
});
const decided = (layer: LimitLayer["layer"], limit: number, remaining: number): LayerDecision => ({
  layer,
  allowed: true,
  limit,
  remaining,
  reset: Date.parse("2026-06-01T00:00:00.000Z"),
  retryAfter: 0,
});

describe("crossedUsageEvents", () => {
  const crossed = (layers: LimitLayer[], decisions: LayerDecision[]) =>
    crossedUsageEvents({ key, owner: "user:alice", layers, decisions, now: start }, cryptoRandom);

  it("finds the request that reaches 80 % and 100 % of a quota, and no other", () => {
    const hits = [];
    for (let used = 1; used <= 10; used++) {
      const events = crossed([quota(10)], [decided("quota", 10, 10 - used)]);
      if (events) hits.push([used, events.map((entry) => entry.event.data)]);
    }
    const resetsAt = "2026-06-01T00:00:00.000Z";
    expect(hits).toEqual([
      [8, [{ threshold: 80, limit: 10, used: 8, period: "month", resetsAt }]],
      [10, [{ threshold: 100, limit: 10, used: 10, period: "month", resetsAt }]],
    ]);
    // A quota of 1: its one request crosses both.
    const both = crossed([quota(1)], [decided("quota", 1, 0)]);
    expect(both?.map((entry) => entry.once?.key)).toEqual([
      `quota.threshold:user:alice:${Date.parse(resetsAt)}:80`,
      `quota.threshold:user:alice:${Date.parse(resetsAt)}:100`,
    ]);
    expect(thresholdCount(3, 80)).toBe(3);
    expect(thresholdCount(1_000, 80)).toBe(800);
  });

  it("finds credits reaching 0 by a request that spent some, once per grant and refill period", () => {
    expect(crossed([credits(1)], [decided("credits", 10, 1)])).toBeUndefined();
    // Spending nothing at 0 is not reaching it.
    expect(crossed([credits(0)], [decided("credits", 10, 0)])).toBeUndefined();
    const [once] = crossed([credits(2)], [decided("credits", 10, 0)])!;
    expect(once?.event).toMatchObject({
      type: "credits.exhausted",
      keyId: "key_a",
      owner: { type: "user", id: "alice" },
      actor: { type: "system" },
      data: { refillsAt: null },
    });
    expect(once?.once?.key).toBe("credits.exhausted:key_a:5:0");
    const [refilled] = crossed([credits(1, true)], [decided("credits", 10, 0)])!;
    expect(refilled?.event.data).toEqual({ refillsAt: "2026-06-01T00:00:00.000Z" });
    expect(refilled?.once).toEqual({
      key: `credits.exhausted:key_a:5:${Date.parse("2026-06-01T00:00:00.000Z")}`,
      until: Date.parse("2026-06-01T00:00:00.000Z"),
    });
  });
});

function setup(events: EventsConfig, clock: Clock = manualClock(start)) {
  const store = memoryStore();
  const errors: [string, unknown][] = [];
  const keyward = createKeyward({
    store,
    scopes,
    tiers: {
      free: { rateLimit: { limit: 100, window: "1m" }, quota: { limit: 5, period: "month" } },
    },
    clock,
    jwt: false,
    logger: { error: (message, cause) => void errors.push([message, cause]), warn() {} },
    features: [eventsFeature(events)],
  });
  const create = (expiresInMs?: number) =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "bot",
      scopes: ["profile:read"],
      tier: "free",
      ...(expiresInMs === undefined ? {} : { expiresAt: new Date(clock.now() + expiresInMs) }),
    });
  // The tests that move time pass no clock of their own: theirs is the manual one.
  return { store, keyward, errors, create, clock: clock as ManualClock };
}

describe("key.expiring", () => {
  it("is written once a key comes within the lead time, not before, never for a revoked key", async () => {
    const { keyward, create, clock } = setup({
      pruneIntervalMs: false,
      expiring: { leadTimeMs: day, scanIntervalMs: false },
    });
    const soon = await create(2 * day);
    const revoked = await create(2 * day);
    await keyward.keys.revoke("alice", revoked.id);
    expect(await keyward.events.scanExpiring()).toEqual({ written: 0 });
    clock.advance(day); // exactly the lead time before
    expect(await keyward.events.scanExpiring()).toEqual({ written: 1 });
    clock.advance(day / 2);
    expect(await keyward.events.scanExpiring()).toEqual({ written: 0 });
    const { data } = await keyward.events.list({ owner: "alice", types: ["key.expiring"] });
    expect(data).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: "key.expiring",
        occurredAt: new Date(start + day).toISOString(),
        owner: { type: "user", id: "alice" },
        keyId: soon.id,
        actor: { type: "system" },
        data: { expiresAt: new Date(start + 2 * day).toISOString() },
      },
    ]);
    await keyward.close();
  });

  it("runs on the timer from the instance's first verification, and stops with close", async () => {
    const {
      store,
      keyward: manager,
      create,
    } = setup({ pruneIntervalMs: false, expiring: { scanIntervalMs: false } }, systemClock);
    const expiring = await create(day);
    // Another instance on the store that only verifies: its first verification starts its timer.
    const verifier = createKeyward({
      store,
      scopes,
      tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
      jwt: false,
      features: [eventsFeature({ pruneIntervalMs: false, expiring: { scanIntervalMs: 20 } })],
    });
    const types = async () =>
      (await manager.events.list({ owner: "alice" })).data.map((event) => event.type);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await types()).toEqual(["key.created"]); // no timer before any request
    expect((await verifier.verify(`Bearer ${expiring.key}`, { route: "GET /x" })).ok).toBe(true);
    await expect.poll(types).toEqual(["key.expiring", "key.created"]);
    await verifier.close();
    // Closed: a key expiring now is not found by that instance any more.
    await create(day);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await types()).filter((type) => type === "key.expiring")).toHaveLength(1);
  });

  it("is off with expiring: false, and scanExpiring says so", async () => {
    const { keyward } = setup({ pruneIntervalMs: false, expiring: false });
    await expect(keyward.events.scanExpiring()).rejects.toThrow(TypeError);
    await expect(keyward.events.scanExpiring()).rejects.toThrow(/`expiring: false` in events\(\)/);
  });
});

describe("quota.threshold and credits.exhausted on verify", () => {
  it("a failing append is logged and never fails the request", async () => {
    const { store, keyward, create, errors } = setup({ pruneIntervalMs: false, expiring: false });
    const created = await create();
    store.keys.events.append = async () => {
      throw new Error("the event log is down");
    };
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(await keyward.verify(`Bearer ${created.key}`, { route: "GET /x" }));
    }
    expect(results.map((result) => result.ok)).toEqual([true, true, true, true, true]);
    // 80 % (4th) and 100 % (5th) both failed; the logger's repeat filter folds the second.
    await expect.poll(() => errors.length).toBe(1);
    const [message, cause] = errors[0]!;
    expect(message).toMatch(/writing quota\.threshold for key key_\w+ failed/);
    expect((cause as Error).message).toBe("the event log is down");
  });

  it("writes each threshold once, and nothing for the refused requests after it", async () => {
    const { keyward, create, store } = setup({ pruneIntervalMs: false, expiring: false });
    const created = await create();
    // Every append the store is asked for: none but the two crossings (4th and 5th of a quota of 5).
    const append = store.keys.events.append;
    let appends = 0;
    store.keys.events.append = (entries, now) => {
      appends++;
      return append(entries, now);
    };
    for (let i = 0; i < 7; i++) await keyward.verify(`Bearer ${created.key}`, { route: "GET /x" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const { data } = await keyward.events.list({ owner: "alice", types: ["quota.threshold"] });
    expect(data.map((event) => (event.data as { threshold: number }).threshold).sort()).toEqual([
      100, 80,
    ]);
    expect(appends).toBe(2);
  });
});

describe("limits in key.updated", () => {
  it("carries the key's new limits, credits as granted; clearing them writes null", async () => {
    const { keyward, create, clock } = setup({ pruneIntervalMs: false, expiring: false });
    const created = await create();
    await keyward.keys.update("alice", created.id, {
      limits: { credits: { remaining: 50, refill: { amount: 50, period: "month" } } },
    });
    clock.advance(1_000); // a second apart: the listing orders them by time
    await keyward.keys.update("alice", created.id, { limits: { quota: false } });
    clock.advance(1_000);
    await keyward.keys.update("alice", created.id, { limits: null });
    const { data } = await keyward.events.list({ owner: "alice", types: ["key.updated"] });
    expect(data.map((event) => event.data).reverse()).toEqual([
      {
        changes: {
          limits: { credits: { remaining: 50, refill: { amount: 50, period: "month" } } },
        },
      },
      {
        changes: {
          limits: {
            quota: false,
            credits: { remaining: 50, refill: { amount: 50, period: "month" } },
          },
        },
      },
      { changes: { limits: null } },
    ]);
  });
});

describe("events.expiring options", () => {
  const store = () => memoryStore();
  const configure =
    (expiring: unknown, keys = store().keys) =>
    () =>
      createKeyward({
        store: { ...store(), keys },
        scopes,
        tiers: { free: { rateLimit: { limit: 1, window: "1m" } } },
        jwt: false,
        features: [eventsFeature({ expiring: expiring as false })],
      });

  it("refuses bad values with a TypeError naming the option", () => {
    expect(configure("weekly")).toThrow(/`events\.expiring` must be an object/);
    expect(configure({ leadTimeMs: 0 })).toThrow(/`events\.expiring\.leadTimeMs`/);
    expect(configure({ leadTimeMs: 1.5 })).toThrow(/`events\.expiring\.leadTimeMs`/);
    expect(configure({ scanIntervalMs: -1 })).toThrow(/`events\.expiring\.scanIntervalMs`/);
    expect(configure({ leadTimeMs: day, scanIntervalMs: false })).not.toThrow();
  });

  it("refuses expiring on a key store that cannot list expiring keys; without it, scans find none", async () => {
    const { listExpiring: _, ...keys } = store().keys;
    expect(configure({}, keys)).toThrow(
      /a key store that lists expiring keys \(`keys\.listExpiring`\)/,
    );
    const keyward = configure(undefined, keys)();
    expect(await keyward.events.scanExpiring()).toEqual({ written: 0 });
  });
});
