/**
 * What an implementation under test hands the HTTP conformance suite. By default the implementation
 * must be configured with the demo contract (docs/testing-adapters.md): scopes `profile:read`,
 * `profile:write`, `org:read`, `org:write`; tiers `free` 60, `pro` 600, `enterprise` 6000 requests a
 * minute, in that order; and the two host routes under `/api/v1/profiles/:slug`. `tiers`, `scopes`
 * and `route` describe another configuration instead.
 */
import type { OpenApiDocument } from "@keyward/core";
import type { InactivitySuiteOptions, MaxLifetimeSuiteOptions } from "./policy-options.js";

export interface HttpSuiteOptions {
  /**
   * Sends one request to the implementation under test. URLs are absolute, e.g.
   * `http://keyward.test/api/v1/api-keys`; an adapter wrapper may rewrite the origin.
   */
  fetch(request: Request): Promise<Response>;
  /**
   * The HS256 secret the implementation verifies JWTs with (the demo's `KEYWARD_JWT_SECRET`). The
   * suite mints its own JWTs with it: `{ sub, tier }`, issued now, expiring in 10 minutes.
   */
  jwtSecret: string;
  /** Where the six key-management endpoints live; default `/api/v1/api-keys`. */
  basePath?: string;
  /** Skip checks that need real time to pass (key expiry); default false. */
  skipSlow?: boolean;
  /**
   * The configured tiers, tier name → requests per minute (a one-minute window), lowest first, at
   * least two; default `{ free: 60, pro: 600, enterprise: 6000 }`.
   */
  tiers?: Readonly<Record<string, number>>;
  /**
   * The scopes: `read` is what `GET` on the host route needs, `write` what `PUT` needs, `all` every
   * configured scope (including those two); default `profile:read`, `profile:write` and the four
   * demo scopes.
   */
  scopes?: { read: string; write: string; all: readonly string[] };
  /**
   * A scope name create must refuse as unknown; default `billing:write`, or `billing:write-2`, … if
   * the configuration has that scope. Must not be one of `scopes.all`.
   */
  unknownScope?: string;
  /**
   * A tier name create must refuse as unknown; default `platinum`, or `platinum-2`, … if the
   * configuration has that tier. Must not be one of `tiers`.
   */
  unknownTier?: string;
  /**
   * The host route the implementation guards: `GET` needs the read scope, `PUT` the write scope,
   * both answer `{ slug, viewer }` / `{ slug, updatedBy }` with the id taken from the path.
   * `template` is the pattern usage reports name; `path` builds a concrete path from a slug.
   * Default `/api/v1/profiles/:slug`.
   */
  route?: { template: string; path(slug: string): string };
  /**
   * Also check organization-owned keys: the implementation lists `organizations()`, reading
   * memberships from the JWT claim `orgs: [{ id, role, tier }]` and the default roles
   * (manage: owner, admin; read: owner, admin, member), as the demo contract has them
   * (`@keyward/testing/demo-contract`).
   * Its host route answers `viewer`/`updatedBy` with the principal's owner id (`readProfile`).
   */
  organizations?: boolean;
  /**
   * Also check organization roles that cap the scopes they grant, with `organizations` (and PATCH
   * with `keyUpdates`): the implementation's roles are the demo contract v0.3's
   * (`DEMO_ORGANIZATION_ROLES`: a `developer` who manages keys and grants only the read and write
   * scopes).
   */
  roleGrants?: boolean;
  /**
   * Also check `PATCH {basePath}/{key_id}` (name, metadata, enabled, narrowing scopes): the
   * implementation lists `lifecycle()` (PATCH is on by default there).
   */
  keyUpdates?: boolean;
  /**
   * Also check environments: the implementation configures
   * `keys: { environments: { live: "sk_live_", test: "sk_test_" } }` (the demo contract's), and its
   * host route takes keys of both.
   */
  environments?: boolean;
  /**
   * Also check IP allowlists (`allowedIps` on create, and on PATCH with `keyUpdates`): the host
   * route passes `verify` the client's address as the framework resolves it, and the suite's
   * requests reach it from a loopback address (127.0.0.1 or ::1), not through a proxy it trusts.
   */
  allowedIps?: boolean;
  /**
   * Also check graceful rotation (`gracePeriodSeconds` on rotate): the implementation lists
   * `lifecycle({ gracefulRotation })`, whose maximum this gives (`true`: the default, 7 days).
   */
  gracefulRotation?: boolean | { maxGracePeriodSeconds: number };
  /**
   * Also check resource-limited keys (`resources` on create, and on PATCH with `keyUpdates`): the
   * implementation lists `permissions()` and its host route passes `resource: { [kind]: slug }` on
   * `GET` and `PUT` (`true`: the demo contract v0.3's kind, `profile`).
   */
  resources?: boolean | { kind: string };
  /**
   * Also check the client address of a key's last use (`lastUsedAddress` on its usage and record):
   * the implementation lists `permissions({ lastUsedAddress: true })` (the demo contract does), its
   * host route passes `verify` the client's address, and the suite's requests reach it from a
   * loopback address (127.0.0.1 or ::1), as with `allowedIps`.
   */
  lastUsedAddress?: boolean;
  /**
   * Also check `GET {basePath}/{key_id}/events`, the audit log: the implementation lists
   * `events()` (the demo contract does).
   */
  events?: boolean;
  /**
   * Also check the `maxLifetime` policy (`permissions({ maxLifetime })`, one cap for every key):
   * against a second implementation, reached by its own `fetch`, configured as this one but with
   * the cap (which changes what every create answers). See `MaxLifetimeSuiteOptions`.
   */
  maxLifetime?: MaxLifetimeSuiteOptions;
  /**
   * Also check `disableAfterUnused` (`permissions({ disableAfterUnused })`): against a second
   * implementation, reached by its own `fetch`, on a clock the suite moves, with the scan run on
   * demand. See `InactivitySuiteOptions`.
   */
  inactivity?: InactivitySuiteOptions;
  /**
   * The implementation's OpenAPI document (`keyward.openapi()`, with `openapi()` listed). When given, every answer the suite
   * gets must match it: a status the operation describes, its required headers, a body valid
   * against its schema. An answer the document does not describe fails the test.
   */
  openapi?: OpenApiDocument;
}
