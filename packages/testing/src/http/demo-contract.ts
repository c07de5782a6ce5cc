/**
 * The demo contract every implementation under test is configured with (`../demo-contract.ts`),
 * and the fixed values the HTTP suite addresses it with.
 */

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
