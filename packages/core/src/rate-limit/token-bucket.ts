/**
 * Token bucket: a bucket of `limit` tokens, refilled continuously at `limit` per `windowMs`; each
 * request takes one token. A full bucket lets `limit` requests through at once, then one every
 * `windowMs / limit`.
 *
 * State: `[level, updatedAt]`, where `level` counts tokens in units of 1/`windowMs` of a token (a
 * token is `windowMs` units, the bucket holds `limit × windowMs`, and refill adds `limit` units per
 * millisecond). Integer units keep every decision exact, in JavaScript and in a Redis Lua script
 * alike, as long as `limit × windowMs` is a safe integer, which `toPolicy` checks.
 *
 * Bound: any `t` consecutive milliseconds admit at most `limit + ⌊(t − 1) × limit / windowMs⌋`
 * (a full bucket plus what trickles in), so 2 × limit − 1 at most in a window-long interval.
 * It admits exactly the same requests as GCRA with the same policy.
 */
import { ceilDivide, floorDivide } from "./integer-division.js";
import type { RateLimitAlgorithm } from "./types.js";

export const tokenBucket: RateLimitAlgorithm = (state, now, { limit, windowMs }) => {
  const capacity = limit * windowMs;
  const [storedLevel = capacity, updatedAt = now] = state ?? [];
  // A state written by a caller whose clock is ahead is not refilled twice: time never runs back.
  const at = Math.max(now, updatedAt);
  const elapsed = at - updatedAt;
  const level = elapsed >= windowMs ? capacity : Math.min(capacity, storedLevel + elapsed * limit);

  const allowed = level >= windowMs;
  const left = allowed ? level - windowMs : level;
  const reset = at + ceilDivide(capacity - left, limit);
  return {
    state: [left, at],
    decision: {
      allowed,
      limit,
      remaining: floorDivide(left, windowMs),
      reset,
      retryAfter: allowed ? 0 : at + ceilDivide(windowMs - level, limit) - now,
    },
    expiresAt: reset,
  };
};
