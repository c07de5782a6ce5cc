/**
 * Rate limiting, as pure steps. Each algorithm is a function of (previous state, now, policy) that
 * returns the next state and a decision; a `RateLimitStore` applies that step atomically.
 */

export type RateLimitAlgorithmName = "fixed-window" | "sliding-window" | "token-bucket" | "gcra";

/**
 * `limit` requests per `windowMs`. For the token bucket, `limit` is the bucket size and it refills
 * at `limit / windowMs`; for GCRA, `limit` is the burst and the emission interval is
 * `windowMs / limit`.
 */
export interface RateLimitPolicy {
  algorithm: RateLimitAlgorithmName;
  limit: number;
  windowMs: number;
}

/** What a step decided; `reset` and `retryAfter` are derived from the algorithm's state. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests still admissible right now after this one. */
  remaining: number;
  /** Epoch ms at which the limit is fully available again (the window resets / the bucket is full). */
  reset: number;
  /** When refused: ms until a request would be admitted. 0 when allowed. */
  retryAfter: number;
}

/** The serialisable state an algorithm keeps per key: a small tuple of numbers. */
export type RateLimitState = readonly number[];

export interface RateLimitStep {
  state: RateLimitState;
  decision: RateLimitDecision;
  /** Epoch ms after which `state` can be dropped without changing any later decision. */
  expiresAt: number;
}

export type RateLimitAlgorithm = (
  state: RateLimitState | undefined,
  now: number,
  policy: RateLimitPolicy,
) => RateLimitStep;
