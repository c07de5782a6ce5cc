import type { RateLimitDecision, RateLimitPolicy } from "../rate-limit/types.js";
import type { UsageStore } from "./usage-store.js";

/** One request's usage, for a store that records it together with the rate-limit step. */
export interface UsageHit {
  keyId: string;
  method: string;
  route: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
}

/**
 * Persistence for rate-limit state.
 *
 * Contract:
 * - `consume` is one atomic step of the policy's algorithm for `key`: reading the state, deciding,
 *   and writing the new state happen with no other step for the same key in between. Memory stores
 *   do it synchronously; Redis does it in one Lua script.
 * - `now` is the caller's clock in epoch ms. A store with an authoritative clock of its own (Redis
 *   `TIME`) may use that instead, so that instances with skewed clocks agree.
 * - State for a key may be dropped once the algorithm says it can no longer affect a decision
 *   (`RateLimitStep.expiresAt`); a store must not keep expired state forever.
 * - A store that sets `recordsUsage` counts `usage` (one request, allowed or not) in the same
 *   atomic call, so a verified request costs one round trip; Keyward then does not buffer that
 *   request's usage itself. Other stores ignore `usage`.
 */
export interface RateLimitStore {
  consume(
    key: string,
    policy: RateLimitPolicy,
    now: number,
    usage?: UsageHit,
  ): Promise<RateLimitDecision>;
  readonly recordsUsage?: boolean;
  /**
   * With `recordsUsage`, the usage store that reads back what `consume` counts. Keyward must be
   * given this one as its `usage`, or usage is counted where nobody reads it; `combineStores`
   * checks it.
   */
  readonly usageStore?: UsageStore;
}
