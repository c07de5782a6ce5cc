/**
 * The demo contract of DESIGN.md in one place: the scopes, the tiers and the two profile routes
 * every example serves, with the JSON those routes answer. `@keyward/testing` holds the same values
 * for the conformance suite (it cannot import an example); `contract.test.ts` keeps the two equal.
 */
import type { QuotaConfig, TierConfig } from "@keyward/core";

/** The scopes a demo key may be granted, with the descriptions `GET /api-keys/scopes` lists. */
export const demoScopes = {
  "profile:read": "Read profiles",
  "profile:write": "Edit profiles",
  "org:read": "Read organizations",
  "org:write": "Manage organizations",
} as const satisfies Record<string, string>;

export type DemoScope = keyof typeof demoScopes;

/** Requests a minute per tier, lowest tier first: the order is the tier ranking. */
export const defaultTierLimits = { free: 60, pro: 600, enterprise: 6000 } as const;

export type DemoTier = keyof typeof defaultTierLimits;

export const demoTierNames = Object.keys(defaultTierLimits) as DemoTier[];

export type TierLimits = Record<DemoTier, number>;

/**
 * The `tiers` option of `createKeyward` for the given per-minute allowances, with an owner-shared
 * allowance (per minute) and a quota for the tiers that have one.
 */
export function demoTiers(
  limits: TierLimits,
  layers: {
    ownerLimits?: Partial<Record<DemoTier, number>>;
    quotas?: Partial<Record<DemoTier, QuotaConfig>>;
  } = {},
): Record<DemoTier, TierConfig> {
  const tiers = {} as Record<DemoTier, TierConfig>;
  for (const tier of demoTierNames) {
    const owner = layers.ownerLimits?.[tier];
    const quota = layers.quotas?.[tier];
    tiers[tier] = {
      rateLimit: { limit: limits[tier], window: "1m" },
      ...(owner === undefined ? {} : { ownerRateLimit: { limit: owner, window: "1m" } }),
      ...(quota === undefined ? {} : { quota }),
    };
  }
  return tiers;
}

/** The template every framework registers the profile routes under, and usage is recorded by. */
export const profilePath = "/api/v1/profiles/:slug";

/** The host's own routes and the scope each needs. */
export const profileRoutes = {
  read: { method: "GET", path: profilePath, scopes: ["profile:read"] },
  update: { method: "PUT", path: profilePath, scopes: ["profile:write"] },
} as const satisfies Record<string, { method: string; path: string; scopes: DemoScope[] }>;

/** Whoever a request acts for: an API key's owner, or the user of a session JWT. */
export interface Viewer {
  userId: string;
}

/** `GET /api/v1/profiles/:slug` answers `200 {"slug", "viewer"}`. */
export function readProfile(slug: string, principal: Viewer): { slug: string; viewer: string } {
  return { slug, viewer: principal.userId };
}

/** `PUT /api/v1/profiles/:slug` answers `200 {"slug", "updatedBy"}`. The demo stores nothing. */
export function updateProfile(
  slug: string,
  principal: Viewer,
): { slug: string; updatedBy: string } {
  return { slug, updatedBy: principal.userId };
}
