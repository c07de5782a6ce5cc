/**
 * The demo contract every implementation under test is configured with (DESIGN.md, "Demo
 * contract"). The suite's expectations are written against these values.
 */

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
    organizations: { memberships: demoMemberships },
    keyUpdates: true,
  };
}

/**
 * The demo's organization memberships (DESIGN, "Demo contract, v0.2"): the JWT claim
 * `orgs: [{ id, role, tier }]`, none when the claim is absent or not a list.
 */
export function demoMemberships(claims: Record<string, unknown>) {
  return Array.isArray(claims.orgs) ? (claims.orgs as { id: string; role: string; tier: string }[]) : [];
}
