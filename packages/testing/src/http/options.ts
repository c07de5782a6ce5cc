/**
 * What an implementation under test hands the HTTP conformance suite. The implementation must be
 * configured with the demo contract (docs/testing-adapters.md): scopes `profile:read`,
 * `profile:write`, `org:read`, `org:write`; tiers `free` 60, `pro` 600, `enterprise` 6000 requests a
 * minute, in that order; and the two host routes under `/api/v1/profiles/:slug`.
 */
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
}
