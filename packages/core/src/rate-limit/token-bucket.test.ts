import { describe, expect, it } from "vitest";
import { limiterFor } from "../../test/support/rate-limit.js";
import { manualClock } from "../clock.js";
import { tokenBucket } from "./token-bucket.js";
import type { RateLimitPolicy } from "./types.js";

const start = Date.parse("2026-01-01T00:00:00Z");
// 4 tokens, refilled at 4 per second: one every 250 ms.
const policy: RateLimitPolicy = { algorithm: "token-bucket", limit: 4, windowMs: 1_000 };

const limiter = (p: RateLimitPolicy = policy) => limiterFor(tokenBucket, p);

describe("tokenBucket", () => {
  it("lets a full bucket of `limit` through at once, then refuses", () => {
    const hit = limiter();
    const decisions = Array.from({ length: 5 }, () => hit(start).decision);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([3, 2, 1, 0, 0]);
    // reset: until the bucket is full again; retryAfter: until one token is back.
    expect(decisions.map((d) => d.reset)).toEqual(
      [250, 500, 750, 1_000, 1_000].map((ms) => start + ms),
    );
    expect(decisions[4]!.retryAfter).toBe(250);
  });

  it("refills continuously, with exact remaining, reset and retryAfter along the way", () => {
    const clock = manualClock(start);
    const hit = limiter();
    for (let i = 0; i < 4; i++) hit(clock.now());
    clock.set(start + 249);
    expect(hit(clock.now()).decision).toEqual({
      allowed: false,
      limit: 4,
      remaining: 0,
      reset: start + 1_000,
      retryAfter: 1,
    });
    clock.set(start + 600); // 2.4 tokens
    expect(hit(clock.now()).decision).toEqual({
      allowed: true,
      limit: 4,
      remaining: 1,
      reset: start + 1_250,
      retryAfter: 0,
    });
    expect(hit(clock.now()).decision).toMatchObject({ allowed: true, remaining: 0 });
    // 0.4 token left: 0.6 more takes 150 ms.
    expect(hit(clock.now()).decision).toMatchObject({ allowed: false, retryAfter: 150 });
    clock.set(start + 750);
    expect(hit(clock.now())).toEqual({
      state: [0, start + 750],
      decision: { allowed: true, limit: 4, remaining: 0, reset: start + 1_750, retryAfter: 0 },
      expiresAt: start + 1_750,
    });
  });

  it("does not take a token for a refused request", () => {
    const hit = limiter();
    for (let i = 0; i < 4; i++) hit(start);
    for (let ms = 0; ms < 250; ms += 5) expect(hit(start + ms).decision.allowed).toBe(false);
    expect(hit(start + 250).decision.allowed).toBe(true);
  });

  it("is exact when the refill interval is not a whole number of milliseconds", () => {
    const hit = limiter({ algorithm: "token-bucket", limit: 3, windowMs: 1_000 });
    for (let i = 0; i < 3; i++) hit(start);
    expect(hit(start).decision.retryAfter).toBe(334); // 333.3… rounded up
    expect(hit(start + 333).decision.allowed).toBe(false);
    expect(hit(start + 334).decision.allowed).toBe(true);
    expect(hit(start + 666).decision.allowed).toBe(false);
    expect(hit(start + 667).decision.allowed).toBe(true);
    // 3 tokens have trickled in by exactly start + 1000, two of them already spent.
    expect(hit(start + 999).decision.allowed).toBe(false);
    expect(hit(start + 1_000).decision).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("admits at most 2 × limit − 1 in any window-long interval: a full bucket plus the refill", () => {
    const hit = limiter();
    const admitted: number[] = [];
    for (let now = start; now < start + 1_000; now++) {
      for (let i = 0; i < 5; i++) if (hit(now).decision.allowed) admitted.push(now);
    }
    expect(admitted).toHaveLength(4 + 3);
    expect(admitted.slice(4)).toEqual([250, 500, 750].map((ms) => start + ms));
  });

  it("is full again after `windowMs` idle, and its state can then be dropped", () => {
    const clock = manualClock(start);
    const hit = limiter();
    let last = hit(clock.now());
    for (let i = 0; i < 3; i++) last = hit(clock.now());
    expect(last.expiresAt).toBe(start + 1_000);
    clock.set(last.expiresAt);
    expect(tokenBucket(last.state, clock.now(), policy)).toEqual(
      tokenBucket(undefined, clock.now(), policy),
    );
    clock.advance(3_600_000);
    expect(hit(clock.now()).decision).toMatchObject({ allowed: true, remaining: 3 });
  });
});
