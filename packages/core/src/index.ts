/**
 * @keyward/core — API keys for any TypeScript server: key format and hashing, scopes and tiers,
 * errors, validation, JWT, rate limits, usage, storage interfaces, the in-memory store, and the
 * framework-neutral HTTP handler.
 */

export { type KeyRecord, type KeyStatus, type KeyWithSecret, keyStatus } from "./api/key-record.js";
export type {
  CreateKeyInput,
  KeysApi,
  RevokedKey,
  UsageReport,
} from "./api/keys-api.js";
export { readBearer } from "./auth/bearer.js";
export type { FailedLookupsConfig } from "./auth/failed-lookup-limiter.js";
export {
  createJwtVerifier,
  type JwtAlgorithm,
  type JwtClaims,
  type JwtCommonOptions,
  type JwtJwksOptions,
  type JwtKeyOptions,
  type JwtOptions,
  type JwtSecretOptions,
  type JwtVerifier,
} from "./auth/jwt.js";
export type {
  AcceptedCredentials,
  Principal,
  SessionUser,
  VerifyOptions,
  VerifyResult,
} from "./auth/principal.js";
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
export { type Clock, type ManualClock, manualClock, systemClock } from "./clock.js";
export { errorStatus, type KeywardErrorCode } from "./errors/codes.js";
export {
  type ErrorDetail,
  internalError,
  isKeywardError,
  KeywardError,
} from "./errors/keyward-error.js";
export type { ValidationIssue } from "./errors/validation-issue.js";
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
  type HashImplementation,
  type SecretHasher,
  type SecretHasherOptions,
} from "./keys/hash.js";
export type { KeywardConfig } from "./keyward/config.js";
export { createKeyward, type Keyward } from "./keyward/create-keyward.js";
export { memoryKeyStore } from "./memory/memory-key-store.js";
export {
  type MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  memoryRateLimitStore,
} from "./memory/memory-rate-limit-store.js";
export { type MemoryStoreOptions, memoryStore } from "./memory/memory-store.js";
export { memoryUsageStore } from "./memory/memory-usage-store.js";
export { cryptoRandom, type RandomSource } from "./random.js";
export { parseDuration, type RateLimitConfig, toPolicy } from "./rate-limit/duration.js";
export { type RateLimitHeaderOptions, rateLimitHeaders } from "./rate-limit/headers.js";
export { rateLimitAlgorithms, stepRateLimit } from "./rate-limit/index.js";
export type * from "./rate-limit/types.js";
export { createScopeRegistry, type ScopeRegistry } from "./scopes/scope-registry.js";
export type * from "./storage/index.js";
export { createTierLadder, type TierConfig, type TierLadder } from "./tiers/tier-ladder.js";
export {
  createUsageRecorder,
  type UsageRecorder,
  type UsageRecorderOptions,
} from "./usage/usage-recorder.js";
export {
  type CreateKeyBody,
  createKeyBodySchema,
  validateCreateKeyBody,
} from "./validation/create-key-body.js";
