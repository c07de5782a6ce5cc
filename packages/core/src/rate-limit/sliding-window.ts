/**
 * Sliding window, by the counter approximation (as Cloudflare and Upstash do it): keep the count
 * of the current aligned window and of the one before, and estimate the requests in the last
 * `windowMs` as `previous × (windowMs − elapsed) / windowMs + current`. A request is admitted only
 * when admitting it keeps that estimate at or below `limit`. The default algorithm.
 *
 * State: `[windowStart, current, previous]`.
 *
 * Guarantee (proved in docs/rate-limiting.md, asserted in sliding-window.test.ts), for integer
 * millisecond timestamps and limit L, window W:
 * - any aligned window admits at most L;
 * - any W consecutive milliseconds admit at most L + ⌊L·(W − 2)/W⌋: 2L − 1 whenever 2L < W (any
 *   limit slower than one request per 2 ms), and never 2L. L requests in the last millisecond of a
 *   window followed by a steady stream in the next reach it.
 *
 * All arithmetic is on integers scaled by W, so decisions are exact (no floating-point drift) as
 * long as `limit × windowMs` is a safe integer, which `toPolicy` checks.
 */
import { floorDivide } from "./integer-division.js";
import type { RateLimitAlgorithm } from "./types.js";

export const slidingWindow: RateLimitAlgorithm = (state, now, { limit, windowMs }) => {
  const aligned = Math.floor(now / windowMs) * windowMs;
  let start = aligned;
  let current = 0;
  let previous = 0;
  if (state) {
    // Indexed, not destructured: destructuring goes through the array iterator, and this runs on
    // every verification.
    const stateStart = state[0] ?? aligned;
    const stateCurrent = state[1] ?? 0;
    const statePrevious = state[2] ?? 0;
    if (stateStart >= aligned) {
      // Same window, or a later one written by a caller whose clock is ahead: keep counting there.
      start = stateStart;
      current = stateCurrent;
      previous = statePrevious;
    } else if (stateStart === aligned - windowMs) {
      previous = stateCurrent;
    }
  }

  const elapsed = Math.max(0, now - start);
  // previous × (W − elapsed) / W, kept multiplied by W.
  const carried = previous * (windowMs - elapsed);
  const capacity = limit * windowMs;
  const allowed = carried + (current + 1) * windowMs <= capacity;
  if (allowed) current += 1;

  // Fully available once both counts have slid out: the current count weighs on the next window.
  const reset = current > 0 ? start + 2 * windowMs : start + windowMs;
  return {
    state: [start, current, previous],
    decision: {
      allowed,
      limit,
      remaining: floorDivide(Math.max(0, capacity - carried - current * windowMs), windowMs),
      reset,
      retryAfter: allowed ? 0 : admissibleAt({ start, current, previous }, limit, windowMs) - now,
    },
    expiresAt: reset,
  };
};

/** Where a key's window stands: when it started and its count, and the previous window's. */
interface WindowCounts {
  start: number;
  current: number;
  previous: number;
}

/** The first millisecond at which one more request would be admitted. */
function admissibleAt(
  { start, current, previous }: WindowCounts,
  limit: number,
  windowMs: number,
): number {
  if (current < limit && previous > 0) {
    // Later in this window, once previous × (W − e) ≤ (L − current − 1) × W.
    const elapsed = windowMs - floorDivide((limit - current - 1) * windowMs, previous);
    if (elapsed < windowMs) return start + elapsed;
  }
  if (current === 0) return start + windowMs;
  // In the next window, where `current` becomes the previous count.
  const elapsed = windowMs - floorDivide((limit - 1) * windowMs, current);
  return start + windowMs + Math.max(0, elapsed);
}
