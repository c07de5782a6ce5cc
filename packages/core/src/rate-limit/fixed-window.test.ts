import { describe, expect, it } from "vitest";
import { limiterFor } from "../../test/support/rate-limit.js";
import { manualClock } from "../clock.js";
import { fixedWindow } from "./fixed-window.js";
import type { RateLimitPolicy } from "./types.js";

const start = Date.parse("2026-01-01T00:00:00Z"); // a multiple of every window used here
const policy: RateLimitPolicy = { algorithm: "fixed-window", limit: 3, windowMs: 60_000 };

/** Threads one key's state through successive steps, as a store would. */
const limiter = (p: RateLimitPolicy = policy) => limiterFor(fixedWindow, p);

describe("fixedWindow", () => {
  it("admits exactly `limit` per window, counting `remaining` down", () => {
    const clock = manualClock(start + 10_000);
    const hit = limiter();
    const decisions = Array.from({ length: 4 }, () => hit(clock.now()).decision);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    for (const d of decisions) expect(d.reset).toBe(start + 60_000);
    expect(decisions.map((d) => d.retryAfter)).toEqual([0, 0, 0, 50_000]);
  });

  it("reports reset at the window end and retryAfter until then, at several points", () => {
    const clock = manualClock(start);
    const hit = limiter();
    for (let i = 0; i < 3; i++) hit(clock.now());
    clock.set(start + 59_999);
    expect(hit(clock.now()).decision).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      reset: start + 60_000,
      retryAfter: 1,
    });
    clock.set(start + 60_000);
    expect(hit(clock.now())).toEqual({
      state: [start + 60_000, 1],
      decision: { allowed: true, limit: 3, remaining: 2, reset: start + 120_000, retryAfter: 0 },
      expiresAt: start + 120_000,
    });
  });

  it("does not count refused requests", () => {
    const clock = manualClock(start);
    const hit = limiter();
    for (let i = 0; i < 3; i++) hit(clock.now());
    for (let i = 0; i < 50; i++) {
      clock.advance(1_000);
      expect(hit(clock.now()).state).toEqual([start, 3]);
    }
    clock.set(start + 60_000);
    const next = Array.from({ length: 4 }, () => hit(clock.now()).decision.allowed);
    expect(next).toEqual([true, true, true, false]);
  });

  it("admits 2 × limit across a boundary, and never more than limit in an aligned window", () => {
    const hit = limiter();
    const end = Array.from({ length: 4 }, () => hit(start + 59_999).decision.allowed);
    const next = Array.from({ length: 4 }, () => hit(start + 60_000).decision.allowed);
    expect(end).toEqual([true, true, true, false]);
    expect(next).toEqual([true, true, true, false]);
  });

  it("recovers fully after an idle window", () => {
    const clock = manualClock(start);
    const hit = limiter();
    for (let i = 0; i < 3; i++) hit(clock.now());
    clock.advance(10 * 60_000);
    expect(hit(clock.now()).decision).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("keeps counting in a later window written by a caller whose clock is ahead", () => {
    const step = fixedWindow([start + 60_000, 3], start + 59_000, policy);
    expect(step.decision).toMatchObject({ allowed: false, reset: start + 120_000 });
    expect(step.decision.retryAfter).toBe(61_000);
  });
});
