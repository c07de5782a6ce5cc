import type { FailedLookupsConfig } from "../auth/failed-lookup-limiter.js";
import type { JwtClaims, JwtOptions } from "../auth/jwt.js";
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
  /**
   * How user session tokens are verified: `{ secret }` (HS256), `{ jwksUrl }` or `{ key }`, with
   * optional `issuer`, `audience`, `algorithms` and `clockTolerance`. Without it, every JWT is
   * refused with 401 and only API keys authenticate.
   */
  jwt?: JwtOptions;
  /** A user's account tier from their claims; default the `tier` claim. Unknown → lowest tier. */
  accountTier?: (claims: JwtClaims) => unknown;
  /** Where the six endpoints live; default `/api/v1/api-keys`. */
  basePath?: string;
  /** Largest accepted request body in bytes; default 64 KiB. */
  bodyLimit?: number;
  /** Key prefix; default `sk_live_`. Use e.g. `sk_test_` for a test environment. */
  keyPrefix?: string;
  /**
   * A server-side secret mixed into every key hash (HMAC-SHA-256). With a pepper, a stolen
   * database alone cannot confirm a guessed key. Changing it invalidates every key.
   */
  pepper?: string | Uint8Array;
  /**
   * Forged-key floods. Anyone can mint well-formed keys (the checksum is public), and each distinct
   * one costs a storage lookup. Per client address (IPv6 by /64), at most `limit` lookups that find
   * nothing per `window` (a burst of `limit`, then one every `window / limit`); past that, a key
   * the verification cache does not already hold is refused with 429 and `Retry-After` before any
   * lookup, while keys it holds (clients behind the same NAT) still pass. Applies when `verify`
   * gets a `clientIp` (every adapter passes one) and the key store has lookups to save: a store
   * that answers every `peek` (the memory store) is never limited. Default
   * `{ limit: 60, window: "1m", maxAddresses: 10_000 }`; `false` turns it off.
   */
  failedLookups?: FailedLookupsConfig | false;
  /** Rate-limit response headers: also send the IETF `RateLimit` and `RateLimit-Policy` fields. */
  rateLimitHeaders?: { ietf?: boolean };
  /** Usage buffering: how often counts are written, and how many distinct entries force a write. */
  usage?: { flushIntervalMs?: number; maxBuffered?: number };
  /**
   * Called with the cause of every server-side failure (500s, failed usage writes). Responses never
   * carry internals; this is where they go. Tokens never reach it.
   */
  onError?: (error: unknown, request?: Request) => void;
  /** Time source; default the system clock. */
  clock?: Clock;
  /** Randomness for secrets and ids; default `crypto.getRandomValues`. */
  random?: RandomSource;
}
