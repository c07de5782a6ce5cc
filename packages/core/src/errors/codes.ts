/**
 * Every error Keyward can raise, and the HTTP status each one maps to.
 * This table is the single place where a code becomes a status.
 */
export const errorStatus = {
  /** No `Authorization: Bearer` header, or a malformed one. */
  missing_credentials: 401,
  /** A JWT that fails verification: bad signature, `alg: none`, expired, wrong issuer or audience. */
  invalid_token: 401,
  /** An API key that is malformed, unknown, revoked, expired or replaced by rotation. */
  invalid_api_key: 401,
  /** An API key presented where only a user session (JWT) is accepted. */
  api_key_not_allowed: 403,
  /** A user session presented on a route that takes API keys only (`accept: "api-key"`). */
  api_key_required: 401,
  /** An API key without a scope the route needs. */
  insufficient_scope: 403,
  /** A key tier above the account's tier. */
  tier_not_allowed: 403,
  /** A cookie-authenticated key-management call from an origin that is not trusted. */
  cross_site_request: 403,
  /** A key that belongs to another user, or to an organization the caller is not a member of. */
  not_owner: 403,
  /** An organization named in a request that the caller is not a member of (`organizations`). */
  not_member: 403,
  /** The caller's role in the key's organization does not permit the action (`organizations.roles`). */
  role_not_permitted: 403,
  /**
   * A member whose role caps the scopes it may grant (`roles: { member: { grants } }`) creating,
   * changing or rotating a key with a scope outside them.
   */
  scope_not_grantable: 403,
  /** Creating a key beyond `maxKeysPerOwner` live keys for one owner. */
  too_many_keys: 403,
  /** An API key with an IP allowlist, used from an address outside it (or an unknown one). */
  ip_not_allowed: 403,
  /** A resource-limited key (`permissions()`) used on a route about a resource outside its limits. */
  resource_not_allowed: 403,
  /** Unknown key id. */
  key_not_found: 404,
  /** Rotating or revoking a key that is already revoked; rotating an expired key. */
  key_gone: 410,
  /** A rotation that lost a race with another rotation of the same key; no secret was issued. */
  rotation_conflict: 409,
  /** A reveal (`recoverable()`) with a session older than its `maxSessionAge`: sign in again. */
  reauthentication_required: 403,
  /** A reveal of a key whose secret was not kept sealed (made before `recoverable()`, or imported). */
  secret_not_recoverable: 409,
  /**
   * An update that kept losing races with concurrent changes of the same key (it is re-checked
   * and tried again a few times first); nothing was changed.
   */
  update_conflict: 409,
  /** A change with `If-Match` whose entity tags do not name the key's current version; nothing was changed. */
  precondition_failed: 412,
  /** Body is not valid JSON. */
  malformed_body: 400,
  /** A request the server's parser refused before Keyward saw it (a bad `Content-Length`, say). */
  malformed_request: 400,
  /** The request's headers or body did not arrive within the server's timeout. */
  request_timeout: 408,
  /** A `Content-Type` the route cannot read. */
  unsupported_media_type: 415,
  /** Request headers larger than the server accepts. */
  headers_too_large: 431,
  /**
   * An error with a status the table has no code for (one the host's code threw, say): the status
   * is authoritative. Its status here is nominal; the response keeps the error's own.
   */
  http_error: 400,
  /** Body larger than the configured limit. */
  body_too_large: 413,
  /** Field values violate the schema; `detail` is a list of issues. */
  validation_failed: 422,
  /** A rate limit was hit: the key's own, or the allowance shared by its owner's keys. */
  rate_limited: 429,
  /** The owner's daily or monthly quota is used up. */
  quota_exceeded: 429,
  /** The key's credits are spent (until its next refill, if it has one). */
  credits_exhausted: 429,
  /**
   * Too many keys that matched nothing from one client address (see `failedLookups`): further keys
   * the verification cache does not know are refused before any storage lookup.
   */
  failed_lookups_limited: 429,
  /**
   * A secret-scanning report whose signature is missing, malformed or not made by one of the
   * scanner's published keys (`secretScanning`).
   */
  invalid_signature: 401,
  /** The secret scanner's public keys could not be fetched, so no report can be checked now. */
  scanner_keys_unavailable: 503,
  /**
   * Every secret-scanning report slot is reading a body (`secretScanning.maxConcurrentReports`);
   * `Retry-After` says when to try again.
   */
  reports_busy: 503,
  /** No route under the base path matches. */
  route_not_found: 404,
  /** The route exists but not for this method. */
  method_not_allowed: 405,
  /** A failure inside Keyward or its storage. */
  internal: 500,
} as const satisfies Record<string, number>;

export type KeywardErrorCode = keyof typeof errorStatus;
