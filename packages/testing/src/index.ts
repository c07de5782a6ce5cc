/**
 * @keyward/testing — conformance suites for Keyward storage implementations and HTTP adapters.
 * Import it from your vitest test files.
 */

export { type BudgetsSuiteOptions, describeBudgets } from "./budgets/budgets-suite.js";
export { type HoldFixture, holdFixture } from "./budgets/hold-fixture.js";
export {
  type CheckedReply,
  type ClientAddressSuiteOptions,
  DEMO_CONTRACT_CHECKS,
  DEMO_ENVIRONMENTS,
  DEMO_OPENAPI_ROUTES,
  DEMO_ORGANIZATION_ROLES,
  DEMO_POLICY_LIMITS,
  DEMO_SCOPE_DESCRIPTIONS,
  DEMO_SCOPES,
  DEMO_TIER_LIMITS,
  type DemoFeatures,
  type DemoKeyward,
  type DemoKeywardOptions,
  type DemoPolicies,
  demoFeatures,
  demoKeyward,
  demoKeywardConfig,
  demoPolicies,
  describeClientAddress,
  describeGuardOptions,
  describeHttpConformance,
  describePolicyConformance,
  expectRateLimited,
  forwardTo,
  type GuardOptions,
  type GuardOptionsSuiteOptions,
  type HttpSuiteOptions,
  type InactivitySuiteOptions,
  type MaxLifetimeSuiteOptions,
  mintJwt,
  type OpenApiResponseCheck,
  openApiResponseCheck,
  type PolicySuiteOptions,
  PROFILE_ROUTE,
  profileResource,
  type RawExchange,
  type RawExchangeOptions,
  type RawReply,
  type RawRequest,
  type Reply,
  rawExchange,
  rawRequest,
  readReply,
  requestBytes,
  unsecuredJwt,
} from "./http/index.js";
export {
  describeNodeAdapterConformance,
  type NodeAdapterConformanceOptions,
  type NodeAdapterHost,
  type NodeAdapterServer,
} from "./node-adapter/index.js";
export {
  rawToDer,
  type ScannerKeyServer,
  startScannerKeyServer,
} from "./secret-scanning/scanner-key-server.js";
export {
  describeSecretScanning,
  type SecretScanningHost,
  type SecretScanningSuiteOptions,
} from "./secret-scanning/secret-scanning-suite.js";
export { collectStrings, fakeHash, storedKey, uniqueId } from "./storage/fixtures.js";
export {
  describeStorageConformance,
  type StorageProbe,
  type StorageSuiteOptions,
} from "./storage/index.js";
