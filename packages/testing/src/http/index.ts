/**
 * The HTTP conformance suite: the six key-management endpoints, authentication, authorization,
 * request validation, routing, rate limits and a guarded host route, checked over Fetch
 * `Request`/`Response` against any implementation configured with the demo contract, or with the
 * tiers, scopes and host route its options describe.
 */
import { describe } from "vitest";
import { authenticationSuite } from "./authentication-suite.js";
import { authorizationSuite } from "./authorization-suite.js";
import { createSuiteClient } from "./client.js";
import { environmentsSuite } from "./environments-suite.js";
import { eventsSuite } from "./events-suite.js";
import { gracefulRotationSuite } from "./graceful-rotation-suite.js";
import { hostRoutesSuite } from "./host-routes-suite.js";
import { ipAllowlistsSuite } from "./ip-allowlists-suite.js";
import { lastAddressSuite } from "./last-address-suite.js";
import { lifecycleSuite } from "./lifecycle-suite.js";
import { managementSuite } from "./management-suite.js";
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
    if (options.ipAllowlists)
      ipAllowlistsSuite(client, { keyUpdates: options.keyUpdates === true });
    if (options.gracefulRotation) gracefulRotationSuite(client, options);
    paginationSuite(client);
    if (options.events) eventsSuite(client, options);
    if (options.resources) {
      const kind = options.resources === true ? "profile" : options.resources.kind;
      resourcesSuite(client, { kind, keyUpdates: options.keyUpdates === true });
    }
    if (options.lastAddress) lastAddressSuite(client);
    if (options.openapi) openApiSuite(client, options.openapi);
  });
}
