import { describe, expect, it } from "vitest";
import { limiterFor } from "../../test/support/rate-limit.js";
import { manualClock } from "../clock.js";
import { gcra } from "./gcra.js";
import type { RateLimitPolicy } from "./types.js";

const start = Date.parse("2026-01-01T00:00:00Z");
// Burst 4, emission interval T = 250 ms, tolerance τ = 750 ms.
const policy: RateLimitPolicy = { algorithm: "gcra", limit: 4, windowMs: 1_000 };

const limiter = (p: RateLimitPolicy = policy) => limiterFor(gcra, p);

describe("gcra", () => {
  it("lets `limit` requests pass at once, advancing TAT by T each time, then refuses", () => {
    const hit = limiter();
    const steps = Array.from({ length: 5 }, () => hit(start));
    expect(steps.map((s) => s.decision.allowed)).toEqual([true, true, true, true, false]);
    expect(steps.map((s) => s.decision.remaining)).toEqual([3, 2, 1, 0, 0]);
    expect(steps.map((s) => s.state)).toEqual(
      [250, 500, 750, 1_000, 1_000].map((ms) => [start + ms, 0]),
    );
    expect(steps.map((s) => s.decision.reset)).toEqual(
      [250, 500, 750, 1_000, 1_000].map((ms) => start + ms),
    );
    expect(steps[4]!.decision.retryAfter).toBe(250);
  });

  it("admits one request every T once the burst is spent, with exact values at several points", () => {
    const clock = manualClock(start);
    const hit = limiter();
    for (let i = 0; i < 4; i++) hit(clock.now());
    clock.set(start + 249);
    expect(hit(clock.now())).toEqual({
      state: [start + 1_000, 0],
      decision: { allowed: false, limit: 4, remaining: 0, reset: start + 1_000, retryAfter: 1 },
      expiresAt: start + 1_000,
    });
    clock.set(start + 250);
    expect(hit(clock.now())).toEqual({
      state: [start + 1_250, 0],
      decision: { allowed: true, limit: 4, remaining: 0, reset: start + 1_250, retryAfter: 0 },
      expiresAt: start + 1_250,
    });
    clock.set(start + 1_000); // TAT 1250: 750 ms of slack left, room for 3 (the last at τ exactly)
    expect(hit(clock.now()).decision).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("does not advance TAT on a refused request", () => {
    const hit = limiter();
    for (let i = 0; i < 4; i++) hit(start);
    for (let ms = 0; ms < 250; ms += 5) expect(hit(start + ms).state).toEqual([start + 1_000, 0]);
    expect(hit(start + 250).decision.allowed).toBe(true);
  });

  it("keeps TAT exact when T is not a whole number of milliseconds", () => {
    const hit = limiter({ algorithm: "gcra", limit: 3, windowMs: 1_000 });
    const steps = Array.from({ length: 4 }, () => hit(start));
    // TAT = start + 1000/3, 2000/3, 1000 as whole ms plus thirds.
    expect(steps.slice(0, 3).map((s) => s.state)).toEqual([
      [start + 333, 1],
      [start + 666, 2],
      [start + 1_000, 0],
    ]);
    expect(steps.map((s) => s.decision.reset)).toEqual(
      [334, 667, 1_000, 1_000].map((ms) => start + ms),
    );
    expect(steps[3]!.decision.retryAfter).toBe(334);
    expect(hit(start + 333).decision.allowed).toBe(false);
    expect(hit(start + 334).decision.allowed).toBe(true);
    expect(hit(start + 666).decision.allowed).toBe(false);
    expect(hit(start + 667).decision.allowed).toBe(true);
    expect(hit(start + 999).decision.allowed).toBe(false);
    expect(hit(start + 1_000).decision).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("admits at most 2 × limit − 1 in any window-long interval", () => {
    const hit = limiter();
    const admitted: number[] = [];
    for (let now = start; now < start + 1_000; now++) {
      for (let i = 0; i < 5; i++) if (hit(now).decision.allowed) admitted.push(now);
    }
    expect(admitted).toHaveLength(7);
  });

  it("forgets a key once TAT has passed", () => {
    const hit = limiter();
    let last = hit(start);
    for (let i = 0; i < 3; i++) last = hit(start);
    expect(last.expiresAt).toBe(start + 1_000);
    expect(gcra(last.state, start + 1_000, policy)).toEqual(gcra(undefined, start + 1_000, policy));
    expect(hit(start + 5_000).decision).toMatchObject({ allowed: true, remaining: 3 });
  });
});
