/**
 * The demo contract every implementation under test is configured with (`../demo-contract.ts`),
 * and the fixed values the HTTP suite addresses it with.
 */
import type { HttpSuiteOptions } from "./options.js";

export {
  DEMO_ENVIRONMENTS,
  DEMO_OPENAPI_ROUTES,
  DEMO_ORGANIZATION_ROLES,
  DEMO_SCOPE_DESCRIPTIONS,
  DEMO_SCOPES,
  DEMO_TIER_LIMITS,
  DEMO_WINDOW_SECONDS,
  type DemoFeatures,
  type DemoKeyward,
  type DemoKeywardOptions,
  type DemoScope,
  type DemoTier,
  demoFeatures,
  demoKeyward,
  demoKeywardConfig,
  demoMemberships,
  PROFILE_ROUTE,
  profileResource,
} from "../demo-contract.js";

export const DEFAULT_BASE_PATH = "/api/v1/api-keys";

/** The origin the suite addresses; adapter wrappers may rewrite it. */
export const SUITE_ORIGIN = "http://keyward.test";

export const KEY_PREFIX = "sk_live_";
/** `sk_live_` + 30 random + 6 checksum base62 characters. */
export const KEY_PATTERN = /^sk_live_[0-9A-Za-z]{36}$/;

/**
 * What `describeHttpConformance` may check of an implementation configured with the whole demo
 * contract (v0.3), served over HTTP to the suite's loopback client: spread into its options.
 *
 * @example
 * describeHttpConformance("my adapter", { fetch, jwtSecret, ...DEMO_CONTRACT_CHECKS });
 */
export const DEMO_CONTRACT_CHECKS = {
  organizations: true,
  // The demo's `developer` role grants only the profile scopes (v0.3).
  roleGrants: true,
  keyUpdates: true,
  environments: true,
  // The host routes pass `verify` the client's address; the suite's requests come from loopback.
  allowedIps: true,
  // permissions({ lastUsedAddress: true }): a key's last use shows that address.
  lastUsedAddress: true,
  gracefulRotation: true,
  events: true,
  // The profile routes pass `resource: { profile: slug }`.
  resources: true,
} as const satisfies Partial<HttpSuiteOptions>;
