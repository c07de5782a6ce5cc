/**
 * The demo contract every implementation under test is configured with (DESIGN.md, "Demo
 * contract"). The suite's expectations are written against these values.
 */
import type { OpenApiRoute } from "@keyward/core";

export const DEMO_SCOPES = ["profile:read", "profile:write", "org:read", "org:write"] as const;
export type DemoScope = (typeof DEMO_SCOPES)[number];

/** Requests a minute per tier, lowest tier first. */
export const DEMO_TIER_LIMITS = { free: 60, pro: 600, enterprise: 6000 } as const;
export type DemoTier = keyof typeof DEMO_TIER_LIMITS;

/** The rate-limit window of every demo tier, in seconds. */
export const DEMO_WINDOW_SECONDS = 60;

/** The host routes' template, as usage reports must name it. */
export const PROFILE_ROUTE = "/api/v1/profiles/:slug";

export const DEFAULT_BASE_PATH = "/api/v1/api-keys";

/** The origin the suite addresses; adapter wrappers may rewrite it. */
export const SUITE_ORIGIN = "http://keyward.test";

export const KEY_PREFIX = "sk_live_";
/** `sk_live_` + 30 random + 6 checksum base62 characters. */
export const KEY_PATTERN = /^sk_live_[0-9A-Za-z]{36}$/;

/** The demo scopes with the descriptions `GET /api-keys/scopes` lists. */
export const DEMO_SCOPE_DESCRIPTIONS: Record<DemoScope, string> = {
  "profile:read": "Read profiles",
  "profile:write": "Edit profiles",
  "org:read": "Read organizations",
  "org:write": "Manage organizations",
};

const stringField = { type: "string" } as const;

/**
 * The demo's two profile routes, for `openapi.routes`: what `keyward.openapi()` describes beside
 * the key-management endpoints, so the suite can check the host routes' answers too.
 */
export const DEMO_OPENAPI_ROUTES = [
  {
    method: "GET",
    path: PROFILE_ROUTE,
    scopes: ["profile:read"],
    summary: "Read a profile",
    response: {
      type: "object",
      properties: { slug: stringField, viewer: stringField },
      required: ["slug", "viewer"],
    },
  },
  {
    method: "PUT",
    path: PROFILE_ROUTE,
    scopes: ["profile:write"],
    summary: "Update a profile",
    requestBody: { type: "object" },
    response: {
      type: "object",
      properties: { slug: stringField, updatedBy: stringField },
      required: ["slug", "updatedBy"],
    },
  },
] satisfies OpenApiRoute[];

/**
 * `createKeyward` options for the demo contract, minus the store: spread them into the config of
 * the implementation an adapter's tests run the HTTP suite against.
 *
 * @example
 * const keyward = createKeyward({ store: memoryStore(), ...demoKeywardConfig(jwtSecret) });
 */
export function demoKeywardConfig(jwtSecret: string) {
  return {
    scopes: { ...DEMO_SCOPE_DESCRIPTIONS },
    tiers: {
      free: { rateLimit: { limit: DEMO_TIER_LIMITS.free, window: "1m" } },
      pro: { rateLimit: { limit: DEMO_TIER_LIMITS.pro, window: "1m" } },
      enterprise: { rateLimit: { limit: DEMO_TIER_LIMITS.enterprise, window: "1m" } },
    },
    jwt: { secret: jwtSecret },
    // Describes the host routes in `keyward.openapi()`; serving stays off, as in v0.1.
    openapi: { routes: DEMO_OPENAPI_ROUTES },
  };
}
