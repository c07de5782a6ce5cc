import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { failedLookupLimiter } from "./failed-lookup-limiter.js";

const start = Date.parse("2026-07-01T10:00:00.000Z");

function setup(config: Parameters<typeof failedLookupLimiter>[0] = { limit: 3, window: "3s" }) {
  const clock = manualClock(start);
  return { clock, limiter: failedLookupLimiter(config, clock) };
}

const takeTimes = (limiter: ReturnType<typeof setup>["limiter"], group: string, times: number) =>
  Array.from({ length: times }, () => limiter.take(group).allowed);

describe("failedLookupLimiter", () => {
  it("admits a burst of `limit`, then refuses until one interval has passed", () => {
    const { clock, limiter } = setup();
    expect(takeTimes(limiter, "192.0.2.1", 4)).toEqual([true, true, true, false]);
    const refused = limiter.take("192.0.2.1");
    // One lookup comes back every window / limit = 1 s.
    expect(refused).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      reset: start + 1_000,
      retryAfter: 1_000,
    });
    clock.advance(999);
    expect(limiter.take("192.0.2.1")).toMatchObject({ allowed: false, retryAfter: 1 });
    clock.advance(1);
    expect(takeTimes(limiter, "192.0.2.1", 2)).toEqual([true, false]);
    clock.advance(3_000);
    expect(takeTimes(limiter, "192.0.2.1", 4)).toEqual([true, true, true, false]);
  });

  it("counts only what is not given back: lookups that found a key cost nothing", () => {
    const { limiter } = setup();
    for (let i = 0; i < 1_000; i++) {
      expect(limiter.take("192.0.2.1").allowed).toBe(true);
      limiter.giveBack("192.0.2.1");
    }
    // Fully rested again, so the entry is gone.
    expect(limiter.size).toBe(0);
    expect(takeTimes(limiter, "192.0.2.1", 4)).toEqual([true, true, true, false]);
  });

  it("gives back exactly one lookup, also when the interval is not a whole number of ms", () => {
    const { clock, limiter } = setup({ limit: 3, window: 1_000 }); // T = 333⅓ ms
    expect(takeTimes(limiter, "a", 3)).toEqual([true, true, true]);
    limiter.giveBack("a");
    expect(takeTimes(limiter, "a", 2)).toEqual([true, false]);
    clock.advance(333);
    expect(limiter.take("a")).toMatchObject({ allowed: false, retryAfter: 1 });
    clock.advance(1);
    expect(takeTimes(limiter, "a", 2)).toEqual([true, false]);
  });

  it("gives nothing back to an address it no longer tracks", () => {
    const { limiter } = setup();
    limiter.giveBack("never-seen");
    expect(limiter.size).toBe(0);
    expect(takeTimes(limiter, "never-seen", 4)).toEqual([true, true, true, false]);
  });

  it("keeps each address's budget apart", () => {
    const { limiter } = setup();
    expect(takeTimes(limiter, "192.0.2.1", 4)).toEqual([true, true, true, false]);
    expect(takeTimes(limiter, "192.0.2.2", 4)).toEqual([true, true, true, false]);
  });

  it("tracks at most maxAddresses, forgetting the least recently seen", () => {
    const { limiter } = setup({ limit: 1, window: "1h", maxAddresses: 3 });
    for (let i = 0; i < 100; i++) limiter.take(`10.0.0.${i}`);
    expect(limiter.size).toBe(3);
    // The three most recent are still refused; an early one was forgotten and starts afresh.
    expect(limiter.take("10.0.0.99").allowed).toBe(false);
    expect(limiter.take("10.0.0.0").allowed).toBe(true);
  });

  it("remembers hashes that found a key for a day, until told to forget one", () => {
    const { clock, limiter } = setup();
    expect(limiter.wasFound("hash-a")).toBe(false);
    limiter.rememberFound("hash-a");
    limiter.rememberFound("hash-b");
    expect(limiter.wasFound("hash-a")).toBe(true);
    limiter.forget("hash-b");
    expect(limiter.wasFound("hash-b")).toBe(false);
    clock.advance(24 * 60 * 60 * 1_000 - 1);
    expect(limiter.wasFound("hash-a")).toBe(true);
    clock.advance(1);
    expect(limiter.wasFound("hash-a")).toBe(false);
  });

  it("applies the defaults: 60 per minute, a burst of 60, then one a second", () => {
    const { clock, limiter } = setup({});
    expect(limiter.policy).toEqual({ algorithm: "gcra", limit: 60, windowMs: 60_000 });
    expect(takeTimes(limiter, "a", 61).filter(Boolean)).toHaveLength(60);
    clock.advance(1_000);
    expect(takeTimes(limiter, "a", 2)).toEqual([true, false]);
  });

  it.each([
    [{ limit: 0, window: "1m" }, /failedLookups.*limit/],
    [{ limit: 1.5, window: "1m" }, /failedLookups.*limit/],
    [{ limit: 5, window: "1 minute" }, /failedLookups.*Invalid duration "1 minute"/],
    [{ limit: 5, window: "1m", maxAddresses: 0 }, /failedLookups\.maxAddresses/],
    [null, /failedLookups/],
  ])("refuses the configuration %j, naming the option", (config, message) => {
    expect(() => failedLookupLimiter(config as never, manualClock())).toThrow(message);
  });
});
