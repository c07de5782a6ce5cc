/**
 * The demo contract is written twice: here for the examples, and in `@keyward/testing` for the
 * suite that checks them (a published package cannot import an example). This keeps them equal.
 */
import { describe, expect, it } from "vitest";
import {
  DEMO_OPENAPI_ROUTES,
  DEMO_SCOPE_DESCRIPTIONS,
  DEMO_TIER_LIMITS,
  PROFILE_ROUTE,
} from "../../../packages/testing/src/http/demo-contract.js";
import { defaultTierLimits, demoOpenApiRoutes, demoScopes, profilePath } from "../src/contract.js";

describe("the demo contract", () => {
  it("is the one the conformance suite expects", () => {
    expect(demoScopes).toEqual(DEMO_SCOPE_DESCRIPTIONS);
    expect(defaultTierLimits).toEqual(DEMO_TIER_LIMITS);
    expect(Object.keys(defaultTierLimits)).toEqual(Object.keys(DEMO_TIER_LIMITS));
    expect(profilePath).toBe(PROFILE_ROUTE);
    expect(demoOpenApiRoutes).toEqual(DEMO_OPENAPI_ROUTES);
  });
});
