/**
 * @keyward/core — API keys for any TypeScript server. This entry point holds what a host
 * application uses: `createKeyward`, the in-memory store, `combineStores`, the error type, the
 * storage contracts and the types a host sees. The building blocks that stores and adapters are
 * made of live on `@keyward/core/toolkit`.
 */

export type {
  KeyPage,
  ListPageOptions,
  RevokedKey,
  UsageReport,
} from "./api/key-api-types.js";
export type { KeyRecord, KeyStatus, KeyWithSecret } from "./api/key-record.js";
export type { OwnerInput } from "./api/keys/owner-input.js";
export type { CreateKeyFields, CreateKeyInput, KeyChanges, KeysApi } from "./api/keys-api.js";
export type { ChargeRequest, ChargeStep } from "./auth/charge-steps.js";
export type { FailedLookupsConfig } from "./auth/failed-lookup-limiter.js";
export type {
  JwtAlgorithm,
  JwtClaims,
  JwtCommonOptions,
  JwtJwksOptions,
  JwtKeyOptions,
  JwtOptions,
  JwtSecretOptions,
} from "./auth/jwt.js";
export type { KeyCheck, KeyCheckKit } from "./auth/key-checks.js";
export type { KeyResolver, ResolvedKey, ResolveKit } from "./auth/key-resolvers.js";
export type {
  AcceptedCredentials,
  KeyPrincipal,
  Principal,
  SessionUser,
  UserPrincipal,
  VerifyOptions,
  VerifyResult,
} from "./auth/principal.js";
export type { Spend, SpendKit, SpendStep } from "./auth/spend-steps.js";
export type { VerifyPhases } from "./auth/verify-phases.js";
export type { VerifyFunction, VerifyWrapper } from "./auth/verify-wrappers.js";
export type { EventBus } from "./bus/event-bus.js";
export { type Clock, type ManualClock, manualClock, systemClock } from "./clock.js";
export type { KeywardErrorCode } from "./errors/codes.js";
export { type ErrorDetail, isKeywardError, KeywardError } from "./errors/keyward-error.js";
export type { ValidationIssue } from "./errors/validation-issue.js";
export type {
  EventActor,
  EventDataByType,
  EventKeyLimits,
  EventType,
  KeywardEvent,
  StoredEvent,
} from "./event-model/event.js";
export type { EventRecorder } from "./event-model/event-recorder.js";
export type { EventTypeDeclaration, EventTypes } from "./event-model/event-types.js";
export type {
  FeatureApis,
  FeatureEndpoint,
  FeatureKernel,
  FeatureLimits,
  FeatureLog,
  FeatureParts,
  FeatureRoute,
  KeyModel,
  KeywardFeature,
  StoreRequirement,
} from "./feature-interface/feature.js";
export type { JournalKernel, KernelExtensions } from "./feature-interface/kernel-extensions.js";
export type { InstanceDescription, PathBuilder } from "./feature-interface/openapi-contribution.js";
export type {
  HeaderObject,
  HttpMethod,
  JsonSchema,
  OpenApiDocument,
  OperationObject,
  PathItemObject,
  ResponseObject,
} from "./feature-interface/openapi-types.js";
export type { UsageSection, UsageSectionRequest } from "./feature-interface/usage-section.js";
export type { EndpointRequest, FeatureEndpointHandler } from "./http/routes/route-context.js";
export type { KeyField } from "./keys/key-field.js";
export type {
  CheckedMembership,
  OrganizationAccess,
  OrganizationAction,
} from "./keys/organization-access.js";
export type { Owner, OwnerType } from "./keys/owner.js";
export type {
  BeforeCreate,
  BeforeRotate,
  BeforeUpdate,
  CreateAddition,
  CreateDraft,
  RotateDraft,
  UpdateDraft,
  WriteHookKit,
  WriteHooks,
} from "./keys/write-hooks.js";
export type { HttpConfig, KeysConfig, KeywardConfig } from "./keyward/config.js";
export { createKeyward, type Keyward } from "./keyward/create-keyward.js";
export type { CounterIncrement } from "./limits/counter-increments.js";
export type { KeyLimitPlan } from "./limits/resolve-layers.js";
export type {
  CalendarPeriod,
  CreditsConfig,
  KeyLimitOverrides,
  KeyLimits,
  LayerDecision,
  LayeredDecision,
  LimitLayer,
  LimitLayerName,
  QuotaConfig,
  StoredCredits,
} from "./limits/types.js";
export type { UsageLimits } from "./limits/usage-limits.js";
export type { KeywardLogger, LogFields } from "./logging/logger.js";
export type { StructuredLogger } from "./logging/structured-logger.js";
export { type MemoryStoreOptions, memoryStore } from "./memory/memory-store.js";
export type {
  ReportsStoreCalls,
  StoreCallOutcome,
  StoreObserver,
} from "./observation/store-observer.js";
export type {
  RefusedLayer,
  VerifyObservation,
  VerifyObserver,
} from "./observation/verify-observer.js";
export type {
  WebhookAttemptStatus,
  WebhookObserver,
} from "./observation/webhook-observer.js";
export type { RandomSource } from "./random.js";
export type { RateLimitConfig } from "./rate-limit/duration.js";
export type {
  RateLimitAlgorithmName,
  RateLimitDecision,
  RateLimitPolicy,
} from "./rate-limit/types.js";
export type { ScopeRequirement } from "./scopes/scope-requirement.js";
export { combineStores, type StorePart } from "./storage/combine-stores.js";
export type * from "./storage/index.js";
export type { TierConfig } from "./tiers/tier-ladder.js";
export type { CreateKeyBody } from "./validation/create-key-body.js";
