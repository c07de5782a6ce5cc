import type { FailedLookupLimiter } from "../auth/failed-lookup-limiter.js";
import type { JwtClaims } from "../auth/jwt.js";
import type { Clock } from "../clock.js";
import type { KeyFormat } from "../keys/format.js";
import type { SecretHasher } from "../keys/hash.js";
import type { RandomSource } from "../random.js";
import type { ScopeRegistry } from "../scopes/scope-registry.js";
import type { KeyStore } from "../storage/key-store.js";
import type { RateLimitStore } from "../storage/rate-limit-store.js";
import type { UsageStore } from "../storage/usage-store.js";
import type { TierLadder } from "../tiers/tier-ladder.js";
import type { UsageRecorder } from "../usage/usage-recorder.js";
import type { createKeyBodySchema } from "../validation/create-key-body.js";

/** Everything one Keyward instance is made of, resolved from its config once at start. */
export interface KeywardContext {
  keys: KeyStore;
  usage: UsageStore;
  rateLimits: RateLimitStore;
  format: KeyFormat;
  hasher: SecretHasher;
  scopes: ScopeRegistry;
  tiers: TierLadder;
  clock: Clock;
  random: RandomSource;
  createKeyBody: ReturnType<typeof createKeyBodySchema>;
  /** Verifies a JWT or throws a `KeywardError` (401, or 500 when keys cannot be fetched). */
  verifyJwt(token: string): Promise<JwtClaims>;
  /** The account tier a user's claims carry (resolved against the ladder by the caller). */
  accountTier(claims: JwtClaims): unknown;
  usageRecorder: UsageRecorder;
  /** Makes buffered usage visible to reads (the usage endpoint flushes before it reads). */
  flushUsage(): Promise<void>;
  ietfRateLimitHeaders: boolean;
  /** Lookups of unknown keys per client address; undefined when `failedLookups: false`. */
  failedLookups: FailedLookupLimiter | undefined;
}
