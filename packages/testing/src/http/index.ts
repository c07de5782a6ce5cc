/**
 * The HTTP conformance suite: the six key-management endpoints, authentication, authorization,
 * request validation, routing, rate limits and a guarded host route, checked over Fetch
 * `Request`/`Response` against any implementation configured with the demo contract, or with the
 * tiers, scopes and host route its options describe.
 */
import { describe } from "vitest";
import { allowedIpsSuite } from "./allowed-ips-suite.js";
import { authenticationSuite } from "./authentication-suite.js";
import { authorizationSuite } from "./authorization-suite.js";
import { createSuiteClient } from "./client.js";
import { environmentsSuite } from "./environments-suite.js";
import { eventsSuite } from "./events-suite.js";
import { gracefulRotationSuite } from "./graceful-rotation-suite.js";
import { hostRoutesSuite } from "./host-routes-suite.js";
import { inactivitySuite } from "./inactivity-suite.js";
import { lastUsedAddressSuite } from "./last-used-address-suite.js";
import { lifecycleSuite } from "./lifecycle-suite.js";
import { managementSuite } from "./management-suite.js";
import { maxLifetimeSuite } from "./max-lifetime-suite.js";
import { openApiSuite } from "./openapi-suite.js";
import type { HttpSuiteOptions } from "./options.js";
import { organizationsSuite } from "./organizations-suite.js";
import { paginationSuite } from "./pagination-suite.js";
import { rateLimitSuite } from "./rate-limit-suite.js";
import { resourcesSuite } from "./resources-suite.js";
import { roleGrantsSuite } from "./role-grants-suite.js";
import { routingSuite } from "./routing-suite.js";
import { validationSuite } from "./validation-suite.js";

export { mintJwt, type Reply, readReply, unsecuredJwt } from "./client.js";
export { type ClientAddressSuiteOptions, describeClientAddress } from "./client-address-suite.js";
export {
  DEMO_CONTRACT_CHECKS,
  DEMO_ENVIRONMENTS,
  DEMO_OPENAPI_ROUTES,
  DEMO_ORGANIZATION_ROLES,
  DEMO_SCOPE_DESCRIPTIONS,
  DEMO_SCOPES,
  DEMO_TIER_LIMITS,
  type DemoFeatures,
  type DemoKeyward,
  type DemoKeywardOptions,
  demoFeatures,
  demoKeyward,
  demoKeywardConfig,
  demoMemberships,
  PROFILE_ROUTE,
  profileResource,
} from "./demo-contract.js";
export { DEMO_POLICY_LIMITS, type DemoPolicies, demoPolicies } from "./demo-policies.js";
export { expectRateLimited } from "./expectations.js";
export { forwardTo } from "./forward.js";
export {
  describeGuardOptions,
  type GuardOptions,
  type GuardOptionsSuiteOptions,
} from "./guard-options-suite.js";
export {
  type CheckedReply,
  type OpenApiResponseCheck,
  openApiResponseCheck,
} from "./openapi-check.js";
export type { HttpSuiteOptions } from "./options.js";
export { ROLE_NOT_PERMITTED } from "./organizations-suite.js";
export type { InactivitySuiteOptions, MaxLifetimeSuiteOptions } from "./policy-options.js";
export {
  type RawExchange,
  type RawExchangeOptions,
  rawExchange,
  requestBytes,
} from "./raw-exchange.js";
export { type RawReply, type RawRequest, rawRequest } from "./raw-request.js";

/**
 * Registers the HTTP conformance suite with vitest. Keyward's own `handle` and every framework
 * adapter run it; each test uses fresh user ids, so it needs no cleanup and tolerates a store that
 * is not empty.
 *
 * @example
 * // my-adapter.test.ts
 * import { describeHttpConformance } from "@keyward/testing";
 * describeHttpConformance("my adapter", {
 *   fetch: forwardTo("http://127.0.0.1:3000"), // or (request) => keyward.handle(request)
 *   jwtSecret: process.env.KEYWARD_JWT_SECRET!,
 * });
 *
 * @example
 * // A configuration of your own: tiers lowest first, the host route's scopes, and the route.
 * describeHttpConformance("my app", {
 *   fetch: (request) => app.fetch(request),
 *   jwtSecret,
 *   tiers: { basic: 5, plus: 50 },
 *   scopes: { read: "docs:read", write: "docs:write", all: ["docs:read", "docs:write"] },
 *   route: { template: "/v2/docs/:id", path: (id) => `/v2/docs/${encodeURIComponent(id)}` },
 * });
 */
export function describeHttpConformance(name: string, options: HttpSuiteOptions): void {
  describe(`HTTP conformance: ${name}`, () => {
    const client = createSuiteClient(options);
    managementSuite(client);
    authenticationSuite(client, options);
    authorizationSuite(client, options);
    validationSuite(client);
    routingSuite(client, options);
    rateLimitSuite(client, options);
    hostRoutesSuite(client);
    if (options.organizations) organizationsSuite(client);
    if (options.roleGrants) roleGrantsSuite(client);
    if (options.keyUpdates) lifecycleSuite(client);
    if (options.environments) environmentsSuite(client);
    if (options.allowedIps) allowedIpsSuite(client, { keyUpdates: options.keyUpdates === true });
    if (options.gracefulRotation) gracefulRotationSuite(client, options);
    paginationSuite(client);
    if (options.events) eventsSuite(client, options);
    if (options.resources) {
      const kind = options.resources === true ? "profile" : options.resources.kind;
      resourcesSuite(client, { kind, keyUpdates: options.keyUpdates === true });
    }
    if (options.lastUsedAddress) lastUsedAddressSuite(client);
    if (options.openapi) openApiSuite(client, options.openapi);
    registerPolicySuites(options);
  });
}

/** The checks that need an implementation configured with a policy, each reached by its own `fetch`. */
export type PolicySuiteOptions = Omit<HttpSuiteOptions, "fetch">;

/**
 * Registers only the policy checks, `maxLifetime` and `inactivity`, with vitest: for an
 * implementation whose policy instance is worth checking on its own (another store, say) without
 * running the whole suite again. The other options say what that instance is configured with, as
 * for `describeHttpConformance`.
 *
 * @example
 * const clock = manualClock(Date.now());
 * const keyward = createKeyward({ ...config, clock, features: [...features,
 *   permissions({ maxLifetime: "30d", disableAfterUnused: "10d", inactivityScanIntervalMs: false })] });
 * describePolicyConformance("my store", {
 *   jwtSecret,
 *   maxLifetime: { ms: 30 * 86_400_000, fetch: host, now: clock.now },
 *   inactivity: { fetch: host, disableAfterUnusedMs: 10 * 86_400_000, now: clock.now,
 *     advance: clock.advance, scan: () => keyward.permissions.scanInactive() },
 * });
 */
export function describePolicyConformance(name: string, options: PolicySuiteOptions): void {
  describe(`HTTP policy conformance: ${name}`, () => registerPolicySuites(options));
}

function registerPolicySuites(options: PolicySuiteOptions): void {
  if (options.maxLifetime) {
    maxLifetimeSuite({ ...options, fetch: options.maxLifetime.fetch }, options.maxLifetime);
  }
  if (options.inactivity) {
    inactivitySuite({ ...options, fetch: options.inactivity.fetch }, options.inactivity);
  }
}
