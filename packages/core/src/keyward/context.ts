import type { FailedLookupLimiter } from "../auth/failed-lookup-limiter.js";
import type { JwtClaims } from "../auth/jwt.js";
import type { SessionHook } from "../auth/principal.js";
import type { Clock } from "../clock.js";
import type { Environments } from "../environments/environments.js";
import type { EventRecorder } from "../event-model/event-recorder.js";
import type { KeyFormat } from "../keys/format.js";
import type { SecretHasher } from "../keys/hash.js";
import type { KeyField } from "../keys/key-field.js";
import type { OrganizationAccess } from "../keys/organization-access.js";
import type { WriteHookKit, WriteHooks } from "../keys/write-hooks.js";
import type { LayeredLimiter } from "../limits/layered-limiter.js";
import type { KeywardLogger } from "../logging/logger.js";
import type { WarnOnce } from "../logging/warn-once.js";
import type { RandomSource } from "../random.js";
import type { ScopeRegistry } from "../scopes/scope-registry.js";
import type { KeyStore } from "../storage/key-store.js";
import type { RateLimitStore } from "../storage/rate-limit-store.js";
import type { UsageStore } from "../storage/usage-store.js";
import type { AccountTierSync } from "../tiers/account-tier-sync.js";
import type { TierLadder } from "../tiers/tier-ladder.js";
import type { UsageRecorder } from "../usage/usage-recorder.js";
import type { UsageRetention } from "../usage/usage-retention.js";
import type { createKeyBodySchema } from "../validation/create-key-body.js";
import type { rotateKeyBodySchema } from "../validation/rotate-key-body.js";
import type { updateKeyBodySchema } from "../validation/update-key-body.js";

/** Everything one Keyward instance is made of, resolved from its config once at start. */
export interface KeywardContext {
  keys: KeyStore;
  usage: UsageStore;
  rateLimits: RateLimitStore;
  /** Applies a request's layers when a key has more than its own rate limit; see `limits/`. */
  layeredLimits: LayeredLimiter | undefined;
  /** Every configured environment's prefix, the default first. */
  format: KeyFormat;
  environments: Environments;
  hasher: SecretHasher;
  scopes: ScopeRegistry;
  tiers: TierLadder;
  /** Records account tiers seen in sessions and calls on the owners' keys. */
  accountTiers: AccountTierSync;
  clock: Clock;
  random: RandomSource;
  createKeyBody: ReturnType<typeof createKeyBodySchema>;
  /** Verifies a JWT or throws a `KeywardError` (401, or 500 when keys cannot be fetched). */
  verifyJwt(token: string): Promise<JwtClaims>;
  /** The host's session for a request without a bearer token, when configured. */
  session?: SessionHook;
  /** Origins trusted for cookie-authenticated key-management calls, besides the request's own. */
  trustedOrigins: ReadonlySet<string>;
  /** The account tier a user's claims carry (resolved against the ladder by the caller). */
  accountTier(claims: JwtClaims): unknown;
  usageRecorder: UsageRecorder;
  /** With `usage.retainDays`: the background pruning of daily usage, started on first use. */
  usageRetention?: UsageRetention;
  /**
   * The longest grace a rotation may give, in seconds, and the rotate body's schema for it;
   * undefined when no rotate hook allows a grace (`BeforeRotate.grace`: the body is ignored,
   * `keys.rotate` refuses a grace).
   */
  gracefulRotation:
    | { maxGracePeriodSeconds: number; body: ReturnType<typeof rotateKeyBodySchema> }
    | undefined;
  /** Validates `PATCH` bodies and `keys.update` changes. */
  updateKeyBody: ReturnType<typeof updateKeyBodySchema>;
  /** The listed features' key fields (`keys/key-field.ts`), checked: no name twice. */
  keyFields: readonly KeyField[];
  /** The listed features' write hooks (`keys/write-hooks.ts`), each list in the features' order. */
  writes: Required<WriteHooks>;
  /** What the write hooks are given of the instance. */
  writeKit: WriteHookKit;
  /** Who may act on organizations' keys (`extends.access`); undefined without `organizations()`. */
  organizations: OrganizationAccess | undefined;
  ietfRateLimitHeaders: boolean;
  logger: KeywardLogger;
  /** Logs a warning about how Keyward is called the first time it happens. */
  warnOnce: WarnOnce;
  /** Reports a failure Keyward answered for: to `logger.error` and to the `onError` hook. */
  reportFailure(message: string, cause: unknown, request?: Request): void;
  /** The event journal (`extends.journal`); undefined without `events()` (then none is built). */
  events: EventRecorder | undefined;
  /** Lookups of unknown keys per client address; undefined when `failedLookups: false`. */
  failedLookups: FailedLookupLimiter | undefined;
}
