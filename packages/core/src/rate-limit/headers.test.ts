import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "./headers.js";
import type { RateLimitDecision, RateLimitPolicy } from "./types.js";

const now = Date.parse("2026-01-01T00:00:00Z"); // 1767225600 s
const policy: RateLimitPolicy = { algorithm: "sliding-window", limit: 600, windowMs: 60_000 };
const allowed: RateLimitDecision = {
  allowed: true,
  limit: 600,
  remaining: 599,
  reset: now + 41_200,
  retryAfter: 0,
};
const refused: RateLimitDecision = {
  allowed: false,
  limit: 600,
  remaining: 0,
  reset: now + 90_000,
  retryAfter: 1_500,
};

describe("rateLimitHeaders", () => {
  it("gives limit, remaining and the reset in epoch seconds, rounded up", () => {
    expect(rateLimitHeaders(allowed, policy, { now })).toEqual({
      "X-RateLimit-Limit": "600",
      "X-RateLimit-Remaining": "599",
      "X-RateLimit-Reset": "1767225642",
    });
    expect(
      rateLimitHeaders({ ...allowed, reset: now + 42_000 }, policy, { now })["X-RateLimit-Reset"],
    ).toBe("1767225642");
  });

  it("adds Retry-After in whole seconds, rounded up and at least 1, only when refused", () => {
    expect(rateLimitHeaders(refused, policy, { now })).toEqual({
      "X-RateLimit-Limit": "600",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": "1767225602",
      "Retry-After": "2",
    });
    expect(rateLimitHeaders({ ...refused, retryAfter: 1 }, policy, { now })["Retry-After"]).toBe(
      "1",
    );
    expect(
      rateLimitHeaders({ ...refused, retryAfter: 3_000 }, policy, { now })["Retry-After"],
    ).toBe("3");
  });

  it("points a refusal's reset at the moment a retry is admitted, not the full restore", () => {
    // A sliding window's full restore lies up to two windows ahead; the retry comes much sooner.
    for (const retryAfter of [1, 999, 1_000, 1_001, 59_999, 61_000]) {
      const headers = rateLimitHeaders({ ...refused, retryAfter }, policy, { now: now + 250 });
      const reset = Number(headers["X-RateLimit-Reset"]);
      const retryAt = (now + 250 + retryAfter) / 1000;
      expect(reset).toBeGreaterThanOrEqual(retryAt);
      expect(reset).toBe(Math.ceil((now + 250) / 1000 + Number(headers["Retry-After"])));
    }
  });

  it("adds the IETF RateLimit-Policy and RateLimit fields as structured fields", () => {
    expect(rateLimitHeaders(allowed, policy, { ietf: true, now })).toEqual({
      "X-RateLimit-Limit": "600",
      "X-RateLimit-Remaining": "599",
      "X-RateLimit-Reset": "1767225642",
      "RateLimit-Policy": '"default";q=600;w=60',
      RateLimit: '"default";r=599;t=42',
    });
  });

  it("sets the effective window to Retry-After when refused, so it never points earlier", () => {
    const headers = rateLimitHeaders(refused, policy, { ietf: true, now, policyName: "free" });
    expect(headers["RateLimit-Policy"]).toBe('"free";q=600;w=60');
    expect(headers.RateLimit).toBe('"free";r=0;t=2');
    expect(headers["Retry-After"]).toBe("2");
  });

  it("rounds a sub-second window up to w=1 and escapes the policy name", () => {
    const fast: RateLimitPolicy = { algorithm: "token-bucket", limit: 5, windowMs: 500 };
    const decision = { ...allowed, limit: 5, remaining: 4, reset: now + 100 };
    const headers = rateLimitHeaders(decision, fast, { ietf: true, now, policyName: 'a"b\\c' });
    expect(headers["RateLimit-Policy"]).toBe('"a\\"b\\\\c";q=5;w=1');
    expect(headers.RateLimit).toBe('"a\\"b\\\\c";r=4;t=1');
  });

  it("refuses a policy name a structured field cannot carry", () => {
    expect(() =>
      rateLimitHeaders(allowed, policy, { ietf: true, now, policyName: "pro\n" }),
    ).toThrow(TypeError);
  });

  it("leaves the IETF fields out unless asked", () => {
    const headers = rateLimitHeaders(allowed, policy, { now, ietf: false });
    expect(Object.keys(headers)).toEqual([
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ]);
  });
});
