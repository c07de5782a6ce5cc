import type { FailedLookupsConfig } from "../auth/failed-lookup-limiter.js";
import type { JwtClaims, JwtOptions } from "../auth/jwt.js";
import type { SessionHook } from "../auth/principal.js";
import type { Clock } from "../clock.js";
import type { KeywardFeature } from "../feature-interface/feature.js";
import type { KeywardLogger } from "../logging/logger.js";
import type { KeywardStore } from "../storage/index.js";
import type { TierConfig } from "../tiers/tier-ladder.js";
import type { UsageConfig } from "../usage/usage-config.js";

/**
 * How one Keyward instance is configured: the kernel's options. Only `store`, `scopes` and `tiers`
 * are required; what a feature adds is configured where it is listed, in `features`.
 */
export interface KeywardConfig<
  Features extends readonly KeywardFeature<string, unknown>[] = readonly KeywardFeature<
    string,
    unknown
  >[],
> {
  /**
   * Feature modules, each from its own entry point: what the instance does beyond the kernel. Their
   * APIs appear on the instance, typed from this list. See docs/features.md.
   * @example
   * import { secretScanning } from "@keyward/core/secret-scanning";
   * features: [secretScanning({ action: "revoke" })],
   */
  features?: Features;
  /** Where keys, usage and rate-limit state live: `memoryStore()`, or stores from other packages. */
  store: KeywardStore;
  /** Scope name → description. Keys may only be granted these. */
  scopes: Record<string, string>;
  /** Tier name → allowances, listed lowest to highest: the order is the tier ranking. */
  tiers: Record<string, TierConfig>;
  /**
   * How user session tokens are verified: `{ secret }` (HS256), `{ jwksUrl }` or `{ key }`, with
   * optional `issuer`, `audience`, `algorithms` and `clockTolerance`. Without it, every JWT is
   * refused with 401 and only API keys authenticate (a warning says so at start); `false` says
   * that is intended.
   */
  jwt?: JwtOptions | false;
  /**
   * The signed-in user from the host's own session system (a better-auth or Auth.js session, a
   * Lucia cookie…), for requests that carry no bearer token: the key-management endpoints, and host routes
   * through `authenticate`. Return null when nobody is signed in. A state-changing call that comes
   * with only a session is refused (403) when its `Origin` is another site (see `http.trustedOrigins`).
   * @example
   * session: async (request) => {
   *   const session = await auth.api.getSession({ headers: request.headers });
   *   return session && { userId: session.user.id, tier: session.user.plan };
   * },
   */
  session?: SessionHook;
  /** A user's account tier from their claims; default the `tier` claim. Unknown → lowest tier. */
  accountTier?: (claims: JwtClaims) => unknown;
  /** How keys are made and hashed. See docs/key-format.md. */
  keys?: KeysConfig;
  /** How the key-management endpoints are served. */
  http?: HttpConfig;
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
  /**
   * Usage buffering (how often counts are written, how many distinct entries force a write) and,
   * opt-in, retention of the daily history (`retainDays`). See docs/usage.md.
   */
  usage?: UsageConfig;
  /**
   * Where failures and suspicious configuration are reported: the cause of every 500 (on the key-management
   * endpoints and on verification), failed background writes, and warnings. Default: one line per
   * event on the console (`console.error` / `console.warn`). Pass your own (pino, winston, your
   * platform's) or `false` to silence it. Tokens and secrets never reach it. A pino-style logger
   * (pino, Fastify's `app.log`) is recognised and given fields rather than sentences: `err`, the
   * cause's `code`, and `requestId` where the adapter knows one (`logging/structured-logger.ts`).
   */
  logger?: KeywardLogger | false;
  /**
   * Also called with the cause of every server-side failure (500s, failed background writes), with
   * the request when there is one: the place for an error tracker. Responses never carry internals.
   * It does not replace `logger`.
   */
  onError?: (error: unknown, request?: Request) => void;
  /** Time source; default the system clock. */
  clock?: Clock;
}

/** `keys` in the configuration: how keys are made and hashed. */
export interface KeysConfig {
  /**
   * Key prefix; default `sk_live_`. Use e.g. `sk_test_` for a separate test instance, or
   * `environments` for several prefixes in one instance.
   */
  prefix?: string;
  /**
   * Several environments in one instance, each with its key prefix, the default first:
   * `{ live: "sk_live_", test: "sk_test_" }`. Keys are created in one (`"environment"` on create),
   * records and principals name it, and `verify(…, { environment })` refuses keys of the others.
   * No prefix may start another. Without it, one environment, `live`, with `prefix`. Not with
   * `prefix`.
   */
  environments?: Record<string, string>;
  /**
   * A server-side secret of at least 32 bytes mixed into every key hash (HMAC-SHA-256). With a
   * pepper, a stolen database alone cannot confirm a guessed key. Changing it invalidates every key.
   */
  pepper?: string | Uint8Array;
}

/** `http` in the configuration: how the key-management endpoints are served. */
export interface HttpConfig {
  /** Where the endpoints live; default `/api/v1/api-keys`. */
  basePath?: string;
  /** Largest accepted request body in bytes; default 64 KiB. */
  bodyLimit?: number;
  /**
   * Origins besides the request's own from which session-authenticated (cookie) key-management
   * calls are accepted, e.g. `["https://app.example.com"]` when the dashboard lives elsewhere.
   */
  trustedOrigins?: string[];
  /** Rate-limit response headers: also send the IETF `RateLimit` and `RateLimit-Policy` fields. */
  rateLimitHeaders?: { ietf?: boolean };
}
