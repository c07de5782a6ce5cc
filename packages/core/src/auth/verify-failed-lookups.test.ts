/**
 * Forged-key floods at the level of `verify`: with a key store that counts the lookups reaching it,
 * distinct well-formed keys from one address stop reaching storage once the address's budget is
 * spent, while keys the verification cache holds keep passing.
 */
import { describe, expect, it } from "vitest";
import { cachedKeyStore } from "../cache/cached-key-store.js";
import { manualClock } from "../clock.js";
import { createKeyFormat } from "../keys/format.js";
import type { KeywardConfig } from "../keyward/config.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryKeyStore } from "../memory/memory-key-store.js";
import { memoryStore } from "../memory/memory-store.js";
import type { KeyStore } from "../storage/key-store.js";
import type { VerifyResult } from "./principal.js";

const start = Date.parse("2026-07-01T10:00:00.000Z");
const scopes = { "profile:read": "Read" };
const tiers = { free: { rateLimit: { limit: 1_000, window: "1m" } } };
const forge = () => `Bearer ${createKeyFormat().generate()}`;

/**
 * Keys in memory, but behaving like a database: no `peek`, and every `findByHash` counted (and,
 * when `gate` is set, held until it resolves, as a slow database would).
 */
function databaseKeys() {
  const { peek: _peek, ...inner } = memoryKeyStore();
  const calls = { findByHash: 0 };
  const control: { gate?: Promise<void>; fail?: boolean } = {};
  const keys: KeyStore = {
    ...inner,
    async findByHash(secretHash) {
      calls.findByHash++;
      await control.gate;
      if (control.fail) throw new Error("database unreachable");
      return inner.findByHash(secretHash);
    },
  };
  return { keys, calls, control };
}

function setup(options: { cache?: boolean } & Partial<KeywardConfig> = {}) {
  const { cache = true, ...config } = options;
  const clock = manualClock(start);
  const database = databaseKeys();
  const keys = cache ? cachedKeyStore(database.keys, { clock }) : database.keys;
  const keyward = createKeyward({
    store: { ...memoryStore(), keys },
    scopes,
    tiers,
    clock,
    failedLookups: { limit: 5, window: "1m" },
    ...config,
  });
  const newKey = async () => {
    const { key } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    return `Bearer ${key}`;
  };
  return { clock, keyward, calls: database.calls, control: database.control, newKey };
}

const statusOf = (result: VerifyResult) => (result.ok ? 200 : result.error.status);
const statuses = async (results: Promise<VerifyResult>[]) =>
  (await Promise.all(results)).map(statusOf);

describe("verify under a forged-key flood", () => {
  it("stops the flood reaching storage after the budget; a cached key from the same address passes", async () => {
    const { keyward, calls, newKey } = setup();
    const legitimate = await newKey();
    const clientIp = "192.0.2.1";
    expect((await keyward.verify(legitimate, { clientIp })).ok).toBe(true);
    expect(calls.findByHash).toBe(1);

    const flood: number[] = [];
    for (let i = 0; i < 200; i++) {
      const result = await keyward.verify(forge(), { clientIp });
      flood.push(statusOf(result));
    }
    expect(flood.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(flood.slice(5))).toEqual(new Set([429]));
    // One lookup for the legitimate key, then the budget of five: 195 forged keys never got there.
    expect(calls.findByHash).toBe(6);

    const cached = await keyward.verify(legitimate, { clientIp });
    expect(cached.ok).toBe(true);
    expect(calls.findByHash).toBe(6);
  });

  it("keeps a key that was found lately working from a refused address after its cache entry expires", async () => {
    const { keyward, calls, clock, newKey } = setup();
    const legitimate = await newKey();
    const clientIp = "192.0.2.1";
    expect((await keyward.verify(legitimate, { clientIp })).ok).toBe(true);
    const exhaust = async () => {
      for (let i = 0; i < 10; i++) await keyward.verify(forge(), { clientIp });
      expect(statusOf(await keyward.verify(forge(), { clientIp }))).toBe(429);
    };
    await exhaust();
    // Past the cache's 30 s TTL: the record must come from storage again, budget or not.
    clock.advance(31_000);
    await exhaust();
    const lookups = calls.findByHash;
    expect((await keyward.verify(legitimate, { clientIp })).ok).toBe(true);
    expect(calls.findByHash).toBe(lookups + 1);
  });

  it("stops exempting a hash once a lookup of it finds nothing (rotated away)", async () => {
    const { keyward, calls, clock } = setup();
    const { key, id } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    const clientIp = "192.0.2.1";
    expect((await keyward.verify(`Bearer ${key}`, { clientIp })).ok).toBe(true);
    await keyward.keys.rotate("alice", id);
    for (let i = 0; i < 10; i++) await keyward.verify(forge(), { clientIp });
    // Found before, so looked up once more despite the spent budget: it finds nothing now.
    expect(statusOf(await keyward.verify(`Bearer ${key}`, { clientIp }))).toBe(401);
    clock.advance(2_000); // past the cache's memory of the miss
    await keyward.verify(forge(), { clientIp }); // the refill of those 2 s goes to the flood
    const lookups = calls.findByHash;
    expect(statusOf(await keyward.verify(`Bearer ${key}`, { clientIp }))).toBe(429);
    expect(calls.findByHash).toBe(lookups);
  });

  it("answers an address over its budget with 429, Retry-After and a detail naming the cause", async () => {
    const { keyward } = setup();
    for (let i = 0; i < 5; i++) await keyward.verify(forge(), { clientIp: "192.0.2.1" });
    const refused = await keyward.verify(forge(), { clientIp: "192.0.2.1" });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.code).toBe("failed_lookups_limited");
    const response = refused.error.toResponse(refused.headers);
    expect(response.status).toBe(429);
    // One lookup comes back every 60 s / 5 = 12 s; X-RateLimit-Reset is when it has.
    expect(response.headers.get("retry-after")).toBe("12");
    expect(response.headers.get("x-ratelimit-limit")).toBe("5");
    expect(response.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(response.headers.get("x-ratelimit-reset")).toBe(String(start / 1000 + 12));
    expect(await response.json()).toEqual({
      code: "failed_lookups_limited",
      detail: expect.stringMatching(/too many requests with unknown API keys from this address/i),
    });
  });

  it("sends the IETF fields too, under the policy name failed-lookups, when configured", async () => {
    const { keyward } = setup({ http: { rateLimitHeaders: { ietf: true } } });
    for (let i = 0; i < 5; i++) await keyward.verify(forge(), { clientIp: "192.0.2.1" });
    const refused = await keyward.verify(forge(), { clientIp: "192.0.2.1" });
    expect(refused.headers).toMatchObject({
      "RateLimit-Policy": '"failed-lookups";q=5;w=60',
      RateLimit: '"failed-lookups";r=0;t=12',
    });
  });

  it("refuses a key the cache does not hold from that address until a lookup is back", async () => {
    const { keyward, clock, newKey, calls } = setup();
    for (let i = 0; i < 5; i++) await keyward.verify(forge(), { clientIp: "192.0.2.1" });
    const uncached = await newKey();
    expect((await keyward.verify(uncached, { clientIp: "192.0.2.1" })).ok).toBe(false);
    expect(calls.findByHash).toBe(5);
    clock.advance(12_000);
    expect((await keyward.verify(uncached, { clientIp: "192.0.2.1" })).ok).toBe(true);
    // Found, so the lookup was given back: a second unknown key from there still gets its 401.
    expect(statusOf(await keyward.verify(forge(), { clientIp: "192.0.2.1" }))).toBe(401);
  });

  it("keeps addresses apart, and counts an IPv6 /64 as one address", async () => {
    const { keyward } = setup();
    for (let i = 0; i < 5; i++) await keyward.verify(forge(), { clientIp: "2001:db8:0:1::1" });
    const sameSlash64 = await keyward.verify(forge(), { clientIp: "2001:db8:0:1:ffff::9" });
    expect(statusOf(sameSlash64)).toBe(429);
    const otherSlash64 = await keyward.verify(forge(), { clientIp: "2001:db8:0:2::1" });
    expect(statusOf(otherSlash64)).toBe(401);
    const otherIpv4 = await keyward.verify(forge(), { clientIp: "192.0.2.2" });
    expect(statusOf(otherIpv4)).toBe(401);
  });

  it("charges lookups when they start, so concurrent forged keys never exceed the budget", async () => {
    const { keyward, calls, control } = setup();
    let open: () => void = () => {};
    control.gate = new Promise((resolve) => {
      open = resolve;
    });
    const flood = Array.from({ length: 50 }, () =>
      keyward.verify(forge(), { clientIp: "192.0.2.1" }),
    );
    open();
    const answered = await statuses(flood);
    expect(calls.findByHash).toBe(5);
    expect(answered.filter((status) => status === 401)).toHaveLength(5);
    expect(answered.filter((status) => status === 429)).toHaveLength(45);
  });

  it("does not charge the address for lookups the store failed to make", async () => {
    const { keyward, control } = setup();
    control.fail = true;
    for (let i = 0; i < 20; i++) {
      expect(statusOf(await keyward.verify(forge(), { clientIp: "192.0.2.1" }))).toBe(500);
    }
    control.fail = false;
    expect(statusOf(await keyward.verify(forge(), { clientIp: "192.0.2.1" }))).toBe(401);
  });

  it("limits a store without a cache too: it has nothing to peek at", async () => {
    const { keyward, calls } = setup({ cache: false });
    const answered = await statuses(
      Array.from({ length: 20 }, () => keyward.verify(forge(), { clientIp: "192.0.2.1" })),
    );
    expect(answered.filter((status) => status === 429)).toHaveLength(15);
    expect(calls.findByHash).toBe(5);
  });

  it("limits nothing without a client address", async () => {
    const { keyward, calls } = setup();
    const answered = await statuses(Array.from({ length: 20 }, () => keyward.verify(forge())));
    expect(new Set(answered)).toEqual(new Set([401]));
    expect(calls.findByHash).toBe(20);
  });

  it("limits nothing with failedLookups: false", async () => {
    const { keyward, calls } = setup({ failedLookups: false });
    const answered = await statuses(
      Array.from({ length: 20 }, () => keyward.verify(forge(), { clientIp: "192.0.2.1" })),
    );
    expect(new Set(answered)).toEqual(new Set([401]));
    expect(calls.findByHash).toBe(20);
  });

  it("by default, refuses the 61st unknown key a minute from one address", async () => {
    const clock = manualClock(start);
    const database = databaseKeys();
    const keyward = createKeyward({
      store: { ...memoryStore(), keys: database.keys },
      scopes,
      tiers,
      clock,
    });
    const answered = await statuses(
      Array.from({ length: 61 }, () => keyward.verify(forge(), { clientIp: "192.0.2.1" })),
    );
    expect(answered.filter((status) => status === 401)).toHaveLength(60);
    expect(answered.at(-1)).toBe(429);
  });

  it("never limits the memory store: every lookup there is answered by peek, at no cost", async () => {
    const keyward = createKeyward({ store: memoryStore(), scopes, tiers });
    const answered = await statuses(
      Array.from({ length: 500 }, () => keyward.verify(forge(), { clientIp: "192.0.2.1" })),
    );
    expect(new Set(answered)).toEqual(new Set([401]));
  });
});
