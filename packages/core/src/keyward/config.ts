import type { Clock } from "../clock.js";
import type { RandomSource } from "../random.js";
import type { Storage } from "../storage/index.js";
import type { TierConfig } from "../tiers/tier-ladder.js";

/** How one Keyward instance is configured. Only `store`, `scopes` and `tiers` are required. */
export interface KeywardConfig {
  /** Where keys, usage and rate-limit state live: `memoryStore()`, or stores from other packages. */
  store: Storage;
  /** Scope name → description. Keys may only be granted these. */
  scopes: Record<string, string>;
  /** Tier name → allowances, listed lowest to highest: the order is the tier ranking. */
  tiers: Record<string, TierConfig>;
  /** Key prefix; default `sk_live_`. Use e.g. `sk_test_` for a test environment. */
  keyPrefix?: string;
  /**
   * A server-side secret mixed into every key hash (HMAC-SHA-256). With a pepper, a stolen
   * database alone cannot confirm a guessed key. Changing it invalidates every key.
   */
  pepper?: string | Uint8Array;
  /** Time source; default the system clock. */
  clock?: Clock;
  /** Randomness for secrets and ids; default `crypto.getRandomValues`. */
  random?: RandomSource;
}
