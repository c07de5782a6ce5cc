/**
 * The rate-limit algorithms by name, and the one step every store applies atomically.
 */
import { fixedWindow } from "./fixed-window.js";
import { gcra } from "./gcra.js";
import { slidingWindow } from "./sliding-window.js";
import { tokenBucket } from "./token-bucket.js";
import type {
  RateLimitAlgorithm,
  RateLimitAlgorithmName,
  RateLimitPolicy,
  RateLimitState,
  RateLimitStep,
} from "./types.js";

export const rateLimitAlgorithms: Readonly<Record<RateLimitAlgorithmName, RateLimitAlgorithm>> = {
  "fixed-window": fixedWindow,
  "sliding-window": slidingWindow,
  "token-bucket": tokenBucket,
  gcra,
};

/**
 * One step of `policy.algorithm` for one key: pure, so a store only has to make the read of
 * `state` and the write of the result atomic.
 *
 * @example
 * const { state, decision, expiresAt } = stepRateLimit(previous, clock.now(), policy);
 */
export function stepRateLimit(
  state: RateLimitState | undefined,
  now: number,
  policy: RateLimitPolicy,
): RateLimitStep {
  const algorithm = Object.hasOwn(rateLimitAlgorithms, policy.algorithm)
    ? rateLimitAlgorithms[policy.algorithm]
    : undefined;
  if (!algorithm) {
    throw new TypeError(`Unknown rate-limit algorithm ${JSON.stringify(policy.algorithm)}`);
  }
  return algorithm(state, now, policy);
}
