/**
 * @keyward/testing/demo-contract — the demo contract, defined here once (this module is its
 * source of truth): the scopes, the tiers and the two profile routes every example serves, with the JSON those routes answer. The
 * conformance suites' expectations are written against these values, and the examples are built
 * from them. This entry imports nothing from vitest, so a server may import it at run time.
 */
import {
  createKeyward,
  type FeatureApis,
  type Keyward,
  type KeywardConfig,
  type KeywardFeature,
  memoryStore,
  type QuotaConfig,
  type TierConfig,
} from "@keyward/core";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import { type OpenApiOptions, type OpenApiRoute, openapi } from "@keyward/core/openapi";
import { organizations } from "@keyward/core/organizations";
import { type PermissionsConfig, permissions } from "@keyward/core/permissions";

export const DEMO_SCOPES = ["profile:read", "profile:write", "org:read", "org:write"] as const;
export type DemoScope = (typeof DEMO_SCOPES)[number];

/** The demo scopes with the descriptions `GET /api-keys/scopes` lists. */
export const DEMO_SCOPE_DESCRIPTIONS: Readonly<Record<DemoScope, string>> = {
  "profile:read": "Read profiles",
  "profile:write": "Edit profiles",
  "org:read": "Read organizations",
  "org:write": "Manage organizations",
};

/** Requests a minute per tier, lowest tier first: the order is the tier ranking. */
export const DEMO_TIER_LIMITS = { free: 60, pro: 600, enterprise: 6000 } as const;
export type DemoTier = keyof typeof DEMO_TIER_LIMITS;

/** The demo tiers, lowest first. */
export const DEMO_TIER_NAMES = Object.keys(DEMO_TIER_LIMITS) as readonly DemoTier[];

/** Requests a minute for each demo tier (`KEYWARD_TIER_LIMITS` may change them). */
export type DemoTierLimits = Record<DemoTier, number>;

/** The rate-limit window of every demo tier, in seconds. */
export const DEMO_WINDOW_SECONDS = 60;

/**
 * The `tiers` option of `createKeyward` for the given per-minute allowances, with an owner-shared
 * allowance (per minute) and a quota for the tiers that have one (`KEYWARD_OWNER_LIMITS`,
 * `KEYWARD_QUOTAS` in the demo; none by default).
 */
export function demoTiers(
  limits: Readonly<DemoTierLimits> = DEMO_TIER_LIMITS,
  layers: {
    ownerLimits?: Partial<Record<DemoTier, number>>;
    quotas?: Partial<Record<DemoTier, QuotaConfig>>;
  } = {},
): Record<DemoTier, TierConfig> {
  const tiers = {} as Record<DemoTier, TierConfig>;
  for (const tier of DEMO_TIER_NAMES) {
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

/** What an implementation under test may add to the demo contract. */
export interface DemoKeywardOptions<
  Extra extends readonly KeywardFeature<string, unknown>[] = readonly [],
> {
  /**
   * The options of the demo's `openapi()` feature; default `{ routes: DEMO_OPENAPI_ROUTES }`
   * (the host routes described, the document not served).
   */
  openapi?: OpenApiOptions;
  /**
   * The options of the demo's `permissions()` feature: policies such as `maxLifetime` and
   * `disableAfterUnused`; default none (resource-limited keys only, as the demo contract v0.3).
   */
  permissions?: PermissionsConfig;
  /** More features, listed after the demo's (`secretScanning(...)`, `webhooks(...)`). */
  features?: Extra;
}

/**
 * The features of the demo contract: organizations from the `orgs` claim, `lifecycle()` (PATCH,
 * graceful rotation), the audit log, the OpenAPI document,
 * resource-limited keys and the last client address (`permissions({ lastUsedAddress: true })`).
 */
export function demoFeatures(options: Pick<DemoKeywardOptions, "openapi" | "permissions"> = {}) {
  return [
    organizations({ memberships: demoMemberships, roles: DEMO_ORGANIZATION_ROLES }),
    // PATCH on keys (on by default), and rotation with `gracePeriodSeconds`, up to the default
    // maximum of 7 days.
    lifecycle({ gracefulRotation: true }),
    // The audit log, `GET {basePath}/{key_id}/events`, with the default retention.
    events(),
    // Describes the host routes in `keyward.openapi()`; serving stays off, as in v0.1.
    openapi(options.openapi ?? { routes: DEMO_OPENAPI_ROUTES }),
    // Resource-limited keys: the profile routes pass `resource: profileResource(slug)`; and the
    // client address of each key's last use, shown beside its `lastUsedAt`.
    permissions({ lastUsedAddress: true, ...options.permissions }),
  ] as const;
}

/** The features the demo contract lists. */
export type DemoFeatures = ReturnType<typeof demoFeatures>;

/** An instance configured with the demo contract: the kernel and its features' APIs. */
export type DemoKeyward = Keyward & FeatureApis<DemoFeatures>;

/**
 * `createKeyward` options for the demo contract, minus the store: spread them into the config of
 * the implementation an adapter's tests run the HTTP suite against. Features of its own go in
 * `options.features`, listed after the demo's.
 *
 * @example
 * const keyward = createKeyward({ store: memoryStore(), ...demoKeywardConfig(jwtSecret) });
 */
export function demoKeywardConfig<
  const Extra extends readonly KeywardFeature<string, unknown>[] = readonly [],
>(jwtSecret: string, options: DemoKeywardOptions<Extra> = {}) {
  const features = [...demoFeatures(options), ...(options.features ?? [])] as unknown as readonly [
    ...DemoFeatures,
    ...Extra,
  ];
  return {
    scopes: { ...DEMO_SCOPE_DESCRIPTIONS },
    tiers: demoTiers(),
    // The environments live and test, each with its prefix.
    keys: { environments: { ...DEMO_ENVIRONMENTS } },
    jwt: { secret: jwtSecret },
    features,
  };
}

/**
 * A Keyward on the demo contract with an in-memory store, as adapters' tests run it: `openapi`
 * replaces the options of the demo's `openapi()`, `permissions` those of its `permissions()`,
 * `features` are listed after the demo's, and the rest overrides kernel options.
 */
export function demoKeyward(
  jwtSecret: string,
  overrides: Omit<Partial<KeywardConfig>, "features"> &
    DemoKeywardOptions<readonly KeywardFeature<string, unknown>[]> = {},
): DemoKeyward {
  const {
    openapi: openapiOptions,
    permissions: permissionsConfig,
    features,
    ...kernel
  } = overrides;
  return createKeyward({
    store: memoryStore(),
    ...demoKeywardConfig(jwtSecret, {
      ...(openapiOptions === undefined ? {} : { openapi: openapiOptions }),
      ...(permissionsConfig === undefined ? {} : { permissions: permissionsConfig }),
      ...(features === undefined ? {} : { features }),
    }),
    ...kernel,
  });
}

/** One organization a demo user belongs to: an entry of the JWT claim `orgs`. */
export interface DemoMembership {
  id: string;
  role: string;
  /** The organization's plan; absent: the tier recorded with its keys stands. */
  tier?: string;
}

/**
 * The demo's organization memberships: the JWT claim
 * `orgs: [{ id, role, tier }]`, none when the claim is absent or not a list. Keyward skips entries
 * that are not well-formed, so the claim is passed on as the token carries it.
 */
export function demoMemberships(claims: Record<string, unknown>): readonly DemoMembership[] {
  return Array.isArray(claims.orgs) ? (claims.orgs as DemoMembership[]) : [];
}

/**
 * The demo's organization roles: the defaults (v0.2), and a `developer` (v0.3) who may manage and
 * read keys but grant only `profile:read` and `profile:write` (`scope_not_grantable` otherwise).
 */
export const DEMO_ORGANIZATION_ROLES = {
  manage: ["owner", "admin", "developer"],
  read: ["owner", "admin", "member", "developer"],
  developer: { grants: ["profile:read", "profile:write"] },
};

/** The demo's environments: `live` is the default, so keys made without one are as they always were. */
export const DEMO_ENVIRONMENTS = { live: "sk_live_", test: "sk_test_" } as const;

/** The template every framework registers the profile routes under, and usage is recorded by. */
export const PROFILE_ROUTE = "/api/v1/profiles/:slug";

/**
 * What a profile route is about, for its guard's `resource`: a key
 * limited to `{ profile: ["alice"] }` reads alice and gets 403 `resource_not_allowed` for bob.
 */
export function profileResource(slug: string): { profile: string } {
  return { profile: slug };
}

/** The host's own routes and the scope each needs. */
export const PROFILE_ROUTES = {
  read: { method: "GET", path: PROFILE_ROUTE, scopes: ["profile:read"] },
  update: { method: "PUT", path: PROFILE_ROUTE, scopes: ["profile:write"] },
} as const satisfies Record<string, { method: string; path: string; scopes: DemoScope[] }>;

/**
 * Whoever a request acts for, as the demo names them: an API key's owner (a user, or an
 * organization), or the user of a session JWT. A `Principal` of `@keyward/core` is one.
 */
export type Viewer = { kind: "key"; owner: { id: string } } | { kind: "user"; userId: string };

/** The id a profile answer names: the key's owner, or the session's user. */
function viewerId(principal: Viewer): string {
  return principal.kind === "key" ? principal.owner.id : principal.userId;
}

/** `GET /api/v1/profiles/:slug` answers `200 {"slug", "viewer"}`. */
export function readProfile(slug: string, principal: Viewer): { slug: string; viewer: string } {
  return { slug, viewer: viewerId(principal) };
}

/** `PUT /api/v1/profiles/:slug` answers `200 {"slug", "updatedBy"}`. The demo stores nothing. */
export function updateProfile(
  slug: string,
  principal: Viewer,
): { slug: string; updatedBy: string } {
  return { slug, updatedBy: viewerId(principal) };
}

const stringField = { type: "string" } as const;

/**
 * The demo's two profile routes, for `openapi.routes`: what `keyward.openapi()` describes beside
 * the key-management endpoints, so the suite can check the host routes' answers too.
 */
export const DEMO_OPENAPI_ROUTES = [
  {
    ...PROFILE_ROUTES.read,
    scopes: [...PROFILE_ROUTES.read.scopes],
    summary: "Read a profile",
    response: {
      type: "object",
      properties: { slug: stringField, viewer: stringField },
      required: ["slug", "viewer"],
    },
  },
  {
    ...PROFILE_ROUTES.update,
    scopes: [...PROFILE_ROUTES.update.scopes],
    summary: "Update a profile",
    requestBody: { type: "object" },
    response: {
      type: "object",
      properties: { slug: stringField, updatedBy: stringField },
      required: ["slug", "updatedBy"],
    },
  },
] satisfies OpenApiRoute[];
