import { afterEach, describe, expect, it, vi } from "vitest";
import { manualClock } from "../clock.js";
import { rateLimitAlgorithms } from "../rate-limit/index.js";
import type { RateLimitAlgorithmName, RateLimitPolicy } from "../rate-limit/types.js";
import { memoryRateLimitStore } from "./memory-rate-limit-store.js";

const start = Date.parse("2026-01-01T00:00:00Z");
const names = Object.keys(rateLimitAlgorithms) as RateLimitAlgorithmName[];
const policyFor = (algorithm: RateLimitAlgorithmName): RateLimitPolicy => ({
  algorithm,
  limit: 10,
  windowMs: 60_000,
});

describe.each(names)("memoryRateLimitStore with %s", (algorithm) => {
  const policy = policyFor(algorithm);

  it("admits exactly `limit` of many concurrent requests for one key", async () => {
    const store = memoryRateLimitStore();
    const decisions = await Promise.all(
      Array.from({ length: 100 }, () => store.consume("key_a", policy, start)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining);
    expect(remaining.sort((a, b) => b - a)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it("limits each key on its own", async () => {
    const store = memoryRateLimitStore();
    for (let i = 0; i < 11; i++) await store.consume("key_a", policy, start);
    expect(await store.consume("key_a", policy, start)).toMatchObject({ allowed: false });
    expect(await store.consume("key_b", policy, start)).toMatchObject({
      allowed: true,
      remaining: 9,
    });
  });

  it("recovers once time passes", async () => {
    const clock = manualClock(start);
    const store = memoryRateLimitStore();
    for (let i = 0; i < 10; i++) await store.consume("key_a", policy, clock.now());
    const refused = await store.consume("key_a", policy, clock.now());
    expect(refused.allowed).toBe(false);
    clock.advance(refused.retryAfter);
    expect((await store.consume("key_a", policy, clock.now())).allowed).toBe(true);
    clock.advance(10 * 60_000);
    expect(await store.consume("key_a", policy, clock.now())).toMatchObject({
      allowed: true,
      remaining: 9,
    });
  });
});

describe("memoryRateLimitStore", () => {
  const policy = policyFor("sliding-window");

  afterEach(() => {
    vi.useRealTimers();
  });

  it("drops expired entries as it is used, with no timers", async () => {
    vi.useFakeTimers();
    const clock = manualClock(start);
    const store = memoryRateLimitStore();
    for (let i = 0; i < 1_000; i++) await store.consume(`key_${i}`, policy, clock.now());
    expect(store.size).toBe(1_000);
    expect(vi.getTimerCount()).toBe(0);

    // Still live: the sweep passes over them without dropping any.
    clock.advance(60_000);
    for (let i = 0; i < 1_000; i++) await store.consume("busy", policy, clock.now());
    expect(store.size).toBe(1_001);

    // Expired (a sliding window's count matters for two windows): a lap of the sweep clears them.
    clock.advance(60_000);
    for (let i = 0; i < 500; i++) await store.consume("busy", policy, clock.now());
    expect(store.size).toBeLessThan(520);
    for (let i = 0; i < 600; i++) await store.consume("busy", policy, clock.now());
    expect(store.size).toBe(1);
  });

  it("keeps memory bounded under a stream of one-off keys", async () => {
    const clock = manualClock(start);
    const store = memoryRateLimitStore();
    let largest = 0;
    for (let i = 0; i < 50_000; i++) {
      clock.advance(10); // 6 000 new keys a minute, each live for at most two minutes
      await store.consume(`key_${i}`, policy, clock.now());
      largest = Math.max(largest, store.size);
    }
    // At most 12 000 are live at once; the sweep's lag adds less than as many again.
    expect(largest).toBeLessThanOrEqual(2 * 12_000);
  });

  it("forgets a key's state on access once it has expired", async () => {
    const store = memoryRateLimitStore();
    const one: RateLimitPolicy = { algorithm: "gcra", limit: 1, windowMs: 1_000 };
    expect((await store.consume("key_a", one, start)).allowed).toBe(true);
    expect((await store.consume("key_a", one, start + 999)).allowed).toBe(false);
    expect(await store.consume("key_a", one, start + 1_000)).toMatchObject({ allowed: true });
  });

  it("starts afresh when a key's policy changes", async () => {
    const store = memoryRateLimitStore();
    const free: RateLimitPolicy = { algorithm: "fixed-window", limit: 1, windowMs: 60_000 };
    const pro: RateLimitPolicy = { algorithm: "token-bucket", limit: 5, windowMs: 60_000 };
    await store.consume("key_a", free, start);
    expect((await store.consume("key_a", free, start)).allowed).toBe(false);
    expect(await store.consume("key_a", pro, start)).toMatchObject({ allowed: true, remaining: 4 });
    expect(store.size).toBe(1);
  });

  it("evicts the least recently used key past maxKeys", async () => {
    const store = memoryRateLimitStore({ maxKeys: 3 });
    const one: RateLimitPolicy = { algorithm: "fixed-window", limit: 1, windowMs: 60_000 };
    for (const key of ["a", "b", "c"]) await store.consume(key, one, start);
    await store.consume("a", one, start); // a is now the most recently used
    await store.consume("d", one, start); // evicts b
    expect(store.size).toBe(3);
    expect((await store.consume("a", one, start)).allowed).toBe(false);
    expect((await store.consume("c", one, start)).allowed).toBe(false);
    expect((await store.consume("b", one, start)).allowed).toBe(true); // forgotten, so fresh
    expect(store.size).toBe(3);
  });

  it.each([0, -1, Number.NaN])("rejects maxKeys %d", (maxKeys) => {
    expect(() => memoryRateLimitStore({ maxKeys })).toThrow(TypeError);
  });

  it("reports a failing step as a rejected promise", async () => {
    const store = memoryRateLimitStore();
    const bad = { algorithm: "nope", limit: 1, windowMs: 1 } as unknown as RateLimitPolicy;
    await expect(store.consume("key_a", bad, start)).rejects.toThrow(TypeError);
  });
});
