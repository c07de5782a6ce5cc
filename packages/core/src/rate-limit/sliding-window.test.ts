import { describe, expect, it } from "vitest";
import { limiterFor, seededRandom } from "../../test/support/rate-limit.js";
import { manualClock } from "../clock.js";
import { slidingWindow } from "./sliding-window.js";
import type { RateLimitPolicy } from "./types.js";

const start = Date.parse("2026-01-01T00:00:00Z");
const minute = 60_000;
const policy: RateLimitPolicy = { algorithm: "sliding-window", limit: 10, windowMs: minute };

const limiter = (p: RateLimitPolicy = policy) => limiterFor(slidingWindow, p);

/** The most admissions in any `windowMs` consecutive milliseconds, for sorted admission times. */
function busiestWindow(admitted: number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < admitted.length; last++) {
    while (admitted[last]! - admitted[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** The proved bound: L + ⌊L·(W − 2)/W⌋ in any W consecutive milliseconds. */
function bound({ limit, windowMs }: RateLimitPolicy): number {
  return limit + Math.floor((limit * (windowMs - 2)) / windowMs);
}

describe("slidingWindow", () => {
  it("admits exactly `limit` at once, counting `remaining` down", () => {
    const hit = limiter();
    const decisions = Array.from({ length: 12 }, () => hit(start + 30_000).decision);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0]);
    // The current count weighs on the next window too: full again two window starts later.
    for (const d of decisions) expect(d.reset).toBe(start + 2 * minute);
    // Nothing is admitted before the window ends; then 10 × (W − e)/W + 1 ≤ 10 needs e ≥ W/10.
    expect(decisions[10]).toMatchObject({ allowed: false, retryAfter: 30_000 + 6_000 });
  });

  it("weighs the previous window by its overlap, at several points", () => {
    const clock = manualClock(start);
    const hit = limiter();
    for (let i = 0; i < 10; i++) hit(clock.now());

    clock.set(start + minute); // estimate 10 × 1 + 0
    expect(hit(clock.now()).decision).toEqual({
      allowed: false,
      limit: 10,
      remaining: 0,
      reset: start + minute * 2,
      retryAfter: 6_000,
    });
    clock.set(start + minute + 5_999);
    expect(hit(clock.now()).decision).toMatchObject({ allowed: false, retryAfter: 1 });
    clock.set(start + minute + 6_000); // 10 × 0.9 + 1 = 10
    expect(hit(clock.now())).toEqual({
      state: [start + minute, 1, 10],
      decision: {
        allowed: true,
        limit: 10,
        remaining: 0,
        reset: start + minute * 3,
        retryAfter: 0,
      },
      expiresAt: start + minute * 3,
    });
    clock.set(start + minute + 30_000); // 10 × 0.5 + 1 + 1 = 7 → 3 left
    expect(hit(clock.now()).decision).toMatchObject({ allowed: true, remaining: 3 });
    clock.set(start + minute * 2); // previous is now 2, weighing 2 × 1
    expect(hit(clock.now()).decision).toMatchObject({ allowed: true, remaining: 7 });
    expect(hit(clock.now()).state).toEqual([start + minute * 2, 2, 2]);
  });

  it("does not count refused requests", () => {
    const clock = manualClock(start);
    const hit = limiter();
    for (let i = 0; i < 10; i++) hit(clock.now());
    clock.set(start + minute);
    for (let i = 0; i < 100; i++) {
      const step = hit(clock.now() + i * 50);
      expect(step.decision.allowed).toBe(false);
      expect(step.state).toEqual([start + minute, 0, 10]);
    }
    expect(hit(start + minute + 6_000).decision.allowed).toBe(true);
  });

  it("refuses a second burst at the start of the next window, and stays within the bound", () => {
    const hit = limiter();
    const admitted: number[] = [];
    // A burst in the last millisecond of one window, then a request every millisecond after it.
    for (let now = start + minute - 1; now < start + 3 * minute; now++) {
      const burst = now === start + minute - 1 ? 12 : 1;
      for (let i = 0; i < burst; i++) if (hit(now).decision.allowed) admitted.push(now);
    }
    expect(admitted.filter((t) => t === start + minute - 1)).toHaveLength(10);
    expect(admitted.filter((t) => t === start + minute)).toHaveLength(0);
    // 2L − 1 = 19 in the W milliseconds from the burst: the bound is reached, never passed.
    expect(busiestWindow(admitted, minute)).toBe(19);
    expect(bound(policy)).toBe(19);
  });

  it("reaches but never passes L + ⌊L(W − 2)/W⌋ when the limit is dense (2L ≥ W)", () => {
    const dense: RateLimitPolicy = { algorithm: "sliding-window", limit: 1_000, windowMs: 1_000 };
    const hit = limiter(dense);
    const admitted: number[] = [];
    for (let i = 0; i < 1_000; i++)
      if (hit(start + 999).decision.allowed) admitted.push(start + 999);
    for (let now = start + 1_000; now < start + 3_000; now++) {
      for (let i = 0; i < 3; i++) if (hit(now).decision.allowed) admitted.push(now);
    }
    expect(bound(dense)).toBe(1_998);
    expect(busiestWindow(admitted, 1_000)).toBe(1_998);
  });

  it.each([
    { limit: 10, windowMs: 1_000, seed: 1 },
    { limit: 7, windowMs: 1_000, seed: 2 },
    { limit: 3, windowMs: 10, seed: 3 },
    { limit: 8, windowMs: 10, seed: 4 },
    { limit: 60, windowMs: 60_000, seed: 5 },
  ])(
    "keeps every window-long interval within the bound on a random schedule (%o)",
    ({ limit, windowMs, seed }) => {
      const p: RateLimitPolicy = { algorithm: "sliding-window", limit, windowMs };
      const next = seededRandom(seed);
      const hit = limiter(p);
      const admitted: number[] = [];
      let now = start + Math.floor(next() * windowMs);
      for (let i = 0; i < 20_000; i++) {
        const r = next();
        // Bursts in one millisecond, short gaps, and the odd idle stretch.
        if (r > 0.5)
          now +=
            r > 0.97 ? Math.floor(next() * 3 * windowMs) : 1 + Math.floor((next() * windowMs) / 20);
        if (hit(now).decision.allowed) admitted.push(now);
      }
      expect(busiestWindow(admitted, windowMs)).toBeLessThanOrEqual(bound(p));
      const perAlignedWindow = new Map<number, number>();
      for (const t of admitted) {
        const window = Math.floor(t / windowMs);
        perAlignedWindow.set(window, (perAlignedWindow.get(window) ?? 0) + 1);
      }
      expect(Math.max(...perAlignedWindow.values())).toBeLessThanOrEqual(limit);
      // Over the whole run the long-term rate stays at the limit.
      const windows = Math.floor((admitted.at(-1)! - admitted[0]!) / windowMs) + 2;
      expect(admitted.length).toBeLessThanOrEqual(windows * limit);
    },
  );

  it("recovers fully once two window starts have passed", () => {
    const clock = manualClock(start + 1_000);
    const hit = limiter();
    for (let i = 0; i < 10; i++) hit(clock.now());
    clock.set(start + 2 * minute);
    expect(hit(clock.now())).toMatchObject({
      state: [start + 2 * minute, 1, 0],
      decision: { allowed: true, remaining: 9 },
    });
  });

  it("keeps counting in a later window written by a caller whose clock is ahead", () => {
    const step = slidingWindow([start + minute, 10, 0], start + 59_000, policy);
    expect(step.decision).toMatchObject({ allowed: false, reset: start + 3 * minute });
    // Next window: 10 × (W − e)/W + 1 ≤ 10 at e = 6s.
    expect(step.decision.retryAfter).toBe(start + 2 * minute + 6_000 - (start + 59_000));
  });
});
