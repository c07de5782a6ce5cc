/** Helpers shared by the rate-limit algorithm tests. */
import type {
  RateLimitAlgorithm,
  RateLimitPolicy,
  RateLimitState,
  RateLimitStep,
} from "../../src/rate-limit/types.js";

/** One key's limiter over a pure algorithm: each call steps it at `now`, carrying the state. */
export function limiterFor(
  algorithm: RateLimitAlgorithm,
  policy: RateLimitPolicy,
): (now: number) => RateLimitStep {
  let state: RateLimitState | undefined;
  return (now) => {
    const step = algorithm(state, now, policy);
    state = step.state;
    return step;
  };
}

/** mulberry32: a small seeded PRNG, so a failing random schedule can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
