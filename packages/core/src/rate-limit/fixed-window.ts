/**
 * Fixed window: time is cut into windows of `windowMs` aligned to multiples of `windowMs` since the
 * epoch, and each window admits exactly `limit` requests.
 *
 * State: `[windowStart, count]` (epoch ms of the current window's start, requests admitted in it).
 *
 * Bound: at most `limit` in any aligned window, but up to `2 × limit` in a window-long interval
 * that straddles a boundary (`limit` at the end of one window, `limit` at the start of the next).
 */
import type { RateLimitAlgorithm } from "./types.js";

export const fixedWindow: RateLimitAlgorithm = (state, now, { limit, windowMs }) => {
  const aligned = Math.floor(now / windowMs) * windowMs;
  // A state from a later window means this caller's clock is behind another's: keep counting in
  // that window rather than handing out a fresh allowance.
  const stateStart = state?.[0] ?? aligned;
  const start = Math.max(aligned, stateStart);
  const previousCount = start === stateStart ? (state?.[1] ?? 0) : 0;

  const allowed = previousCount < limit;
  const count = allowed ? previousCount + 1 : previousCount;
  const reset = start + windowMs;
  return {
    state: [start, count],
    decision: {
      allowed,
      limit,
      remaining: Math.max(0, limit - count),
      reset,
      retryAfter: allowed ? 0 : reset - now,
    },
    expiresAt: reset,
  };
};
