/**
 * @keyward/core/toolkit — building blocks for people who write stores and adapters for Keyward:
 * the verification cache and invalidation channels, the in-memory parts, rate-limit algorithms,
 * bucket names and headers, usage recording, key format and hashing, scope and tier registries,
 * the error body and status table, and the failure policy a remote store wraps its calls in. A
 * host application needs none of this; it imports from `@keyward/core`.
 */
export { keyStatus } from "./api/key-record.js";
export { decodeListCursor, pageOf, parsePageSize } from "./api/list-cursor.js";
export { readBearer } from "./auth/bearer.js";
export { type GuardRequestParts, guardOptions } from "./auth/forwarded-options.js";
export { createJwtVerifier, type JwtVerifier } from "./auth/jwt.js";
export { isPromise, type Pending, verifyPending } from "./auth/pending-verify.js";
export {
  type CachedKeyStore,
  type CachedKeyStoreOptions,
  type CachedKeyStoreStats,
  cachedKeyStore,
} from "./cache/cached-key-store.js";
export {
  type ChannelState,
  type InvalidationChannel,
  type InvalidationListener,
  type KeyInvalidation,
  type MemoryInvalidationChannel,
  memoryInvalidationChannel,
} from "./cache/invalidation-channel.js";
export { decodeInvalidation, encodeInvalidation } from "./cache/invalidation-payload.js";
export { errorStatus } from "./errors/codes.js";
export { codeForStatus, errorBody } from "./errors/error-body.js";
export { internalError } from "./errors/keyward-error.js";
export { eventTypes, isEventType, toKeywardEvent } from "./event-model/event.js";
export { isEventId } from "./event-model/event-id.js";
export { matchesQuery, newestEventFirst } from "./event-model/event-order.js";
export {
  type CallGuard,
  type CallGuardOptions,
  type CircuitBreakerOptions,
  callGuard,
} from "./faults/call-guard.js";
export { withDeadline } from "./faults/deadline.js";
export {
  StoreUnavailableError,
  type StoreUnavailableKind,
} from "./faults/store-unavailable-error.js";
export { withHeaders } from "./http/with-headers.js";
export { randomBase62 } from "./keys/base62.js";
export {
  createKeyFormat,
  DEFAULT_KEY_PREFIX,
  isKeyShaped,
  KEY_RANDOM_LENGTH,
  type KeyFormat,
  type KeyFormatOptions,
  type ParsedKey,
} from "./keys/format.js";
export {
  createSecretHasher,
  type HashAlgorithm,
  type SecretHasher,
  type SecretHasherOptions,
} from "./keys/hash.js";
export { isKeyId } from "./keys/key-id.js";
export { isOwnedBy, ownerLabel, ownerOfKey, toOwner, userOwner } from "./keys/owner.js";
export { periodEnd, periodStart } from "./limits/calendar-period.js";
export { counterIncrementsProblem } from "./limits/counter-increments.js";
export {
  type CreditCheckpoints,
  type CreditsState,
  creditCheckpoints,
  creditsStateOf,
  isNewerCredits,
} from "./limits/durable-credits.js";
export {
  type LayeredLimiter,
  type LayeredLimiterOptions,
  layeredLimiter,
} from "./limits/layered-limiter.js";
export { ownerLimitKey } from "./limits/owner-limit-key.js";
export { type LayerStep, stepLayer, stepLayers } from "./limits/step-layer.js";
export { startsFromNothing } from "./limits/transient-credits.js";
export { requestIdOf, tagRequestId } from "./logging/request-id.js";
export {
  type StoreFailureReporter,
  storeFailureReporter,
} from "./logging/store-failure-reporter.js";
export { memoryKeyStore } from "./memory/memory-key-store.js";
export {
  type MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  memoryRateLimitStore,
} from "./memory/memory-rate-limit-store.js";
export { memoryUsageStore } from "./memory/memory-usage-store.js";
export { webhookOutboxOf } from "./memory/memory-webhook-outbox.js";
export { observeVerify } from "./observation/observed-verify.js";
export { attachStoreObserver } from "./observation/store-observer.js";
export { cryptoRandom } from "./random.js";
export {
  type BucketOwner,
  bucketFor,
  parseBucket,
  type RateLimitBucket,
} from "./rate-limit/bucket.js";
export { parseDuration, toPolicy } from "./rate-limit/duration.js";
export { type RateLimitHeaderOptions, rateLimitHeaders } from "./rate-limit/headers.js";
export { rateLimitAlgorithms, stepRateLimit } from "./rate-limit/index.js";
export type { RateLimitAlgorithm, RateLimitState, RateLimitStep } from "./rate-limit/types.js";
export { createScopeRegistry, type ScopeRegistry } from "./scopes/scope-registry.js";
export { compareCodeUnits } from "./storage/code-unit-order.js";
export { pageOfExpiringKeys, soonestExpiryFirst } from "./storage/expiring-order.js";
export { withFields } from "./storage/feature-field-changes.js";
export { frozenKey } from "./storage/frozen-key.js";
export { KeyChangedError } from "./storage/key-changed-error.js";
export { newestKeyFirst, pageOfKeys } from "./storage/key-order.js";
export {
  isLaterUse,
  mergeUsageIncrement,
  mergeUsageIncrements,
  usageIncrementRow,
  useFieldsTimeOf,
} from "./storage/usage-increments.js";
export { compareDailyUsage, compareEndpointUsage, sortKeyUsage } from "./storage/usage-order.js";
export {
  isEndpointId,
  isWebhookDeliveryId,
  webhookDeliveryId,
} from "./storage/webhook-delivery-id.js";
export { createTierLadder, type TierLadder } from "./tiers/tier-ladder.js";
export { routeWithMethod } from "./usage/route-label.js";
export {
  createUsageRecorder,
  type UsageRecorder,
  type UsageRecorderOptions,
} from "./usage/usage-recorder.js";
