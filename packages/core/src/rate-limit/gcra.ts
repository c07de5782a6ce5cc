/**
 * GCRA, the generic cell rate algorithm (as redis-cell and throttled use it): one time per key,
 * the theoretical arrival time (TAT) at which the key would be fully rested. With emission interval
 * T = windowMs / limit and burst tolerance τ = windowMs − T, a request at `now` is admitted when
 * max(TAT, now) + T ≤ now + windowMs, and then TAT advances by T. So `limit` requests pass at once,
 * then one every T. A refused request leaves TAT where it was.
 *
 * State: `[tat, fraction]`, the TAT as the exact rational `tat + fraction / limit` ms (T is rarely a
 * whole number of ms, and a float TAT would drift at boundaries); both are integers.
 *
 * It admits exactly what a token bucket of `limit` refilled at `limit` per `windowMs` admits: TAT is
 * the time at which that bucket would be full again. Bound: at most 2 × limit − 1 in any
 * window-long interval.
 */
import { floorDivide } from "./integer-division.js";
import type { RateLimitAlgorithm } from "./types.js";

export const gcra: RateLimitAlgorithm = (state, now, { limit, windowMs }) => {
  const [storedTat = now, storedFraction = 0] = state ?? [];
  // max(TAT, now): a TAT in the past means the key is fully rested.
  const rested = storedTat < now;
  const baseTat = rested ? now : storedTat;
  const baseFraction = rested ? 0 : storedFraction;

  // TAT + T, in whole ms plus a remainder in 1/limit ms.
  const sum = baseFraction + windowMs;
  const nextTat = baseTat + floorDivide(sum, limit);
  const nextFraction = sum % limit;
  const allowed = nextTat < now + windowMs || (nextTat === now + windowMs && nextFraction === 0);

  const tat = allowed ? nextTat : storedTat;
  const fraction = allowed ? nextFraction : storedFraction;
  // Further requests admissible now: ⌊(now + windowMs − TAT) / T⌋, computed in 1/limit ms.
  const slack = (now + windowMs - tat) * limit - fraction;
  const reset = fraction > 0 ? tat + 1 : tat;
  return {
    state: [tat, fraction],
    decision: {
      allowed,
      limit,
      remaining: slack > 0 ? floorDivide(slack, windowMs) : 0,
      reset,
      retryAfter: allowed ? 0 : admissibleAt(tat, fraction, limit, windowMs) - now,
    },
    expiresAt: reset,
  };
};

/** ⌈TAT + T − windowMs⌉: the first millisecond at which the next request fits. */
function admissibleAt(tat: number, fraction: number, limit: number, windowMs: number): number {
  const sum = fraction + windowMs;
  const whole = tat + floorDivide(sum, limit) - windowMs;
  return sum % limit > 0 ? whole + 1 : whole;
}
