/**
 * Served requests to Stripe meters through the real `stripe` SDK, against the local server that
 * enforces Stripe's documented rules (support/local-stripe.ts): the sink's total per customer is
 * the served count, refused requests bill nothing, repeats are dropped by identifier, a 429's
 * Retry-After is waited, and a window too old for Stripe goes to the adjustments report.
 */
import { createKeyward, manualClock, memoryStore } from "@keyward/core";
import Stripe from "stripe";
import { afterEach, describe, expect, it } from "vitest";
import { type ExportRun, memoryLedger, metering, stripeMeters } from "../src/index.js";
import { type LocalStripe, localStripe } from "./support/local-stripe.js";

const start = Date.parse("2026-12-01T10:00:00.000Z");
const secretKey = "sk_test_local";
const meters = { requests: "keyward_api_requests", credits: "keyward_api_credits" };
const route = "GET /api/v1/profiles/:slug";
let server: LocalStripe | undefined;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await server?.close();
  server = undefined;
});

async function setup(options: { stream?: boolean; startAt?: number } = {}) {
  const { startAt = start, ...sinkOptions } = options;
  const clock = manualClock(startAt);
  server = await localStripe({ secretKey, meters: Object.values(meters), now: () => clock.now() });
  const stripe = new Stripe(secretKey, {
    host: "127.0.0.1",
    port: server.port,
    protocol: "http",
    maxNetworkRetries: 0,
  });
  const ledger = memoryLedger();
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read", "profile:write": "Write" },
    tiers: { free: { rateLimit: { limit: 5, window: "1m" } } },
    clock,
    jwt: false,
    logger: false,
    features: [
      metering({
        ledger,
        exportEvery: false,
        exporters: [
          stripeMeters({ stripe, meters, customer: (ownerId) => ownerId, ...sinkOptions }),
        ],
      }),
    ],
  });
  closers.push(() => keyward.close());
  const created = async (ownerId: string) =>
    keyward.keys.create({
      ownerId,
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
  const keyOf = async (ownerId: string) => (await created(ownerId)).key;
  return { keyward, clock, ledger, keyOf, created, stripe };
}

/** The one sink's run: this instance holds the lease. */
async function onlyRun(keyward: { metering: { exportNow(): Promise<ExportRun[] | false> } }) {
  const runs = await keyward.metering.exportNow();
  if (runs === false || runs.length !== 1) throw new Error("expected one run");
  return runs[0]!;
}

describe("stripeMeters through the stripe SDK", () => {
  it("bills each customer its served requests and spent credits, never a refused one", async () => {
    const { keyward, clock, keyOf, created } = await setup();
    const alice = await keyOf("alice");
    const bobs = await created("bob");
    const bob = bobs.key;
    await keyward.keys.setLimits(bobs.id, { credits: { remaining: 100 } });
    const served = { alice: 0, bob: 0 };
    // alice: 7 calls, 5 admitted (the 6th and 7th are rate limited), 1 refused for its scopes first.
    expect((await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:write"], route })).ok).toBe(
      false,
    );
    for (let call = 0; call < 6; call++) {
      if ((await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route })).ok)
        served.alice++;
    }
    for (let call = 0; call < 3; call++) {
      const result = await keyward.verify(`Bearer ${bob}`, {
        scopes: ["profile:read"],
        route,
        cost: 7,
      });
      if (result.ok) served.bob++;
    }
    expect((await keyward.verify("Bearer kw_live_nothing", { route })).ok).toBe(false);
    expect(served).toEqual({ alice: 4, bob: 3 });

    // The window is still open: nothing is exported yet.
    expect(await keyward.metering.exportNow()).toEqual([
      { sink: "stripe", acknowledged: 0, retried: 0, setAside: 0 },
    ]);
    clock.advance(70_000);
    await keyward.metering.exportNow();
    expect(Object.fromEntries(server!.totals(meters.requests))).toEqual({ alice: 4, bob: 3 });
    expect(Object.fromEntries(server!.totals(meters.credits))).toEqual({ bob: 21 });
    // Every event carries its window's start as its timestamp.
    expect(new Set(server!.events.map((event) => event.timestamp))).toEqual(
      new Set([start / 1000]),
    );
    // Exported once: another run sends nothing.
    await keyward.metering.exportNow();
    expect(server!.events).toHaveLength(3);
    expect((await keyward.metering.status()).sinks[0]).toMatchObject({
      backlog: 0,
      oldestUnexported: null,
    });
  });

  it("a reply lost after Stripe took the event: sent again under its identifier, counted once", async () => {
    const { keyward, clock, keyOf } = await setup();
    const alice = await keyOf("alice");
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    clock.advance(70_000);
    // The SDK sends once more by itself on a closed connection (even with maxNetworkRetries 0):
    // both replies are lost, the second after Stripe refused the repeat.
    server!.dropReplyAfterTaking(2);
    const first = await onlyRun(keyward);
    expect(first.retried).toBe(1);
    expect(server!.events).toHaveLength(1);
    const status = await keyward.metering.status();
    expect(status.sinks[0]!.backlog).toBe(1);
    expect(status.sinks[0]!.lastError?.message).toMatch(/./);
    clock.set(first.backoffUntil!);
    const second = await onlyRun(keyward);
    expect(second.acknowledged).toBe(1);
    expect(server!.duplicates).toBe(2);
    expect(Object.fromEntries(server!.totals(meters.requests))).toEqual({ alice: 2 });
    expect((await keyward.metering.status()).sinks[0]!.backlog).toBe(0);
  });

  it("a 429 is retried no sooner than its Retry-After", async () => {
    const { keyward, clock, keyOf } = await setup();
    const alice = await keyOf("alice");
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    clock.advance(70_000);
    server!.rateLimitNext(1, 120);
    const limited = await onlyRun(keyward);
    expect(limited.backoffUntil).toBeGreaterThanOrEqual(clock.now() + 120_000);
    clock.advance(119_000);
    expect(await keyward.metering.exportNow()).toMatchObject([{ acknowledged: 0 }]);
    expect(server!.events).toHaveLength(0);
    clock.advance(1_000);
    expect(await keyward.metering.exportNow()).toMatchObject([{ acknowledged: 1 }]);
    expect(Object.fromEntries(server!.totals(meters.requests))).toEqual({ alice: 1 });
  });

  it("a window older than Stripe's 35 days goes to the adjustments report, not to Stripe", async () => {
    const { keyward, clock, keyOf } = await setup();
    const alice = await keyOf("alice");
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    clock.advance(35 * 86_400_000);
    await keyward.metering.exportNow();
    expect(server!.events).toHaveLength(0);
    expect(await keyward.metering.adjustments()).toEqual([
      expect.objectContaining({
        sink: "stripe",
        ownerId: "alice",
        meter: "requests",
        value: 1,
        reason: "too-late",
      }),
    ]);
    expect((await keyward.metering.status()).sinks[0]!.backlog).toBe(0);
  });

  it("the v2 meter event stream: one session, events deduplicated by identifier", async () => {
    const { keyward, clock, keyOf } = await setup({ stream: true });
    const alice = await keyOf("alice");
    const bob = await keyOf("bob");
    for (let call = 0; call < 3; call++) {
      await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    }
    await keyward.verify(`Bearer ${bob}`, { scopes: ["profile:read"], route });
    clock.advance(70_000);
    expect(await keyward.metering.exportNow()).toMatchObject([{ acknowledged: 2 }]);
    expect(Object.fromEntries(server!.totals(meters.requests))).toEqual({ alice: 3, bob: 1 });
  });

  it("the v2 stream: a session Stripe says expired (15 minutes) is replaced and the batch sent at once", async () => {
    // The sink judges a session's age by this machine's clock, the server by the test's: both start
    // at the real time, then the test's moves 16 minutes, so the server refuses a session the sink
    // still holds for valid (as Stripe would after 15 minutes, or with clocks that disagree).
    const now = Date.now();
    const { keyward, clock, keyOf } = await setup({ stream: true, startAt: now - (now % 60_000) });
    const alice = await keyOf("alice");
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    clock.advance(70_000);
    expect(await onlyRun(keyward)).toMatchObject({ acknowledged: 1, retried: 0 });
    expect(server!.sessions).toBe(1);
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    clock.advance(16 * 60_000);
    const run = await onlyRun(keyward);
    expect(server!.expiredSessionRefusals).toBe(1);
    expect(server!.sessions).toBe(2);
    // Sent in the same run, no backoff.
    expect(run).toEqual({ sink: "stripe", acknowledged: 1, retried: 0, setAside: 0 });
    expect(Object.fromEntries(server!.totals(meters.requests))).toEqual({ alice: 3 });
  });

  it("the v2 stream: a 429 is retried no sooner than its Retry-After", async () => {
    const { keyward, clock, keyOf } = await setup({ stream: true });
    const alice = await keyOf("alice");
    const bob = await keyOf("bob");
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    await keyward.verify(`Bearer ${bob}`, { scopes: ["profile:read"], route });
    clock.advance(70_000);
    server!.rateLimitNext(1, 90);
    const limited = await onlyRun(keyward);
    expect(limited).toMatchObject({ acknowledged: 0, retried: 2 });
    expect(limited.backoffUntil).toBeGreaterThanOrEqual(clock.now() + 90_000);
    expect(server!.events).toHaveLength(0);
    clock.advance(89_000);
    expect(await keyward.metering.exportNow()).toMatchObject([{ acknowledged: 0 }]);
    expect(server!.events).toHaveLength(0);
    clock.advance(1_000);
    expect(await keyward.metering.exportNow()).toMatchObject([{ acknowledged: 2 }]);
    expect(Object.fromEntries(server!.totals(meters.requests))).toEqual({ alice: 1, bob: 1 });
    expect(server!.duplicates).toBe(0);
  });

  it("reconcile: the ledger against Stripe's meter event summaries, per customer", async () => {
    const { keyward, clock, keyOf } = await setup();
    const alice = await keyOf("alice");
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    await keyward.metering.record("alice", "credits", 40);
    clock.advance(70_000);
    await keyward.metering.exportNow();
    expect((await keyward.metering.reconcile("2026-12")).differences).toEqual([]);
    // Usage in a window not exported yet is a difference.
    await keyward.verify(`Bearer ${alice}`, { scopes: ["profile:read"], route });
    const report = await keyward.metering.reconcile("2026-12");
    expect(report.differences).toEqual([
      { sink: "stripe", ownerId: "alice", meter: "requests", ledger: 2, sinkTotal: 1 },
    ]);
    await expect(keyward.metering.reconcile("2026-13")).rejects.toThrow(/YYYY-MM/);
  });

  it("refuses a bad host meter and changes nothing", async () => {
    const { keyward, ledger } = await setup();
    await expect(keyward.metering.record("alice", "LLM tokens", 5)).rejects.toThrow(/meter name/);
    await expect(keyward.metering.record("alice", "llm_tokens", -1)).rejects.toThrow(
      /whole number/,
    );
    await expect(keyward.metering.record("", "llm_tokens", 1)).rejects.toThrow(/owner id/);
    expect(await ledger.totals(0, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });
});

describe("metering's warning", () => {
  it("warns in the log when the oldest unexported window is older than warnAfter", async () => {
    const clock = manualClock(start);
    const warnings: string[] = [];
    server = await localStripe({
      secretKey,
      meters: Object.values(meters),
      now: () => clock.now(),
    });
    const stripe = new Stripe("sk_test_wrong", {
      host: "127.0.0.1",
      port: server.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    const keyward = createKeyward({
      store: memoryStore(),
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 5, window: "1m" } } },
      clock,
      jwt: false,
      logger: { error() {}, warn: (message) => warnings.push(message) },
      features: [
        metering({
          ledger: memoryLedger(),
          exportEvery: false,
          warnAfter: "10m",
          exporters: [stripeMeters({ stripe, meters, customer: (ownerId) => ownerId })],
        }),
      ],
    });
    closers.push(() => keyward.close());
    await keyward.metering.record("alice", "requests", 1);
    clock.advance(5 * 60_000);
    await keyward.metering.exportNow(); // 401: a wrong secret key
    expect(warnings).toEqual([]);
    const status = await keyward.metering.status();
    expect(status.sinks[0]).toMatchObject({ sink: "stripe", backlog: 1 });
    expect(status.sinks[0]!.lastError?.message).toMatch(/Invalid API Key/);
    // The secret key never reaches the status or the log.
    expect(JSON.stringify(status)).not.toContain("sk_test_wrong");
    clock.advance(10 * 60_000);
    await keyward.metering.exportNow();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /oldest window not exported to stripe started at 2026-12-01T10:00:00.000Z/,
    );
    expect(warnings[0]).not.toContain("sk_test_wrong");
  });
});
