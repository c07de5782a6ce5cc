import type { KeywardError } from "../errors/keyward-error.js";
import type { Owner } from "../keys/owner.js";
import type { RateLimitDecision } from "../rate-limit/types.js";
import type { ScopeRequirement } from "../scopes/scope-requirement.js";
import type { KeyMetadata } from "../storage/key-store.js";
import type { JwtClaims } from "./jwt.js";

/**
 * Who a verified request acts for: an API key, or a signed-in user. `owner` names whose key it is
 * for every key; `userId` is there only when a user is behind the request (a user's own key, or a
 * session), so host code written before organizations never mistakes an organization for a user.
 */
export type Principal = KeyPrincipal | UserPrincipal;

/** The fields every verified API key carries, whoever owns it. */
interface KeyPrincipalFields {
  kind: "key";
  /** The user who created the key. */
  createdBy: string;
  /** The key's metadata (`keys.update`, or the create call), or null. */
  metadata: KeyMetadata | null;
  /** The key's environment: `live` unless `environments` are configured. */
  environment: string;
  keyId: string;
  name: string;
  scopes: readonly string[];
  tier: string;
}

/**
 * A verified API key. Narrow on `owner.type` to reach `userId`: a user's own key has it (the
 * owner's id); an organization's key has none, since no user owns it.
 */
export type KeyPrincipal = KeyPrincipalFields &
  (
    | { owner: Owner & { type: "user" }; userId: string }
    | { owner: Owner & { type: "organization" }; userId?: undefined }
  );

/** A signed-in user: a verified session JWT, or the host's own session. */
export interface UserPrincipal {
  kind: "user";
  userId: string;
  /** The account tier, from `accountTier(claims)`. */
  tier: string;
  claims: JwtClaims;
}

/** Which credentials a route takes. */
export type AcceptedCredentials = "any" | "api-key" | "session";

/**
 * The signed-in user as the host's own session system knows them (better-auth, Auth.js, Lucia, a
 * cookie of your own), returned by the `session` option.
 */
export interface SessionUser {
  /** The user's id: the owner of their keys, as a JWT's `sub` would be. */
  userId: string;
  /** The account tier; when absent, `accountTier(claims)` is asked, as for a JWT. */
  tier?: string;
  /** Anything else to carry on the principal (`principal.claims`). */
  claims?: Record<string, unknown>;
}

/** The host's own session for a request without a bearer token (`session` in the configuration). */
export type SessionHook = (
  request: Request,
) => SessionUser | null | undefined | Promise<SessionUser | null | undefined>;

export interface VerifyOptions {
  /**
   * Which credentials the route takes: `"any"` (the default, as the contract says: an API key, or a
   * user's session token acting with every scope), `"api-key"` (a session token is refused with
   * 401), or `"session"` (an API key is refused with 403).
   */
  accept?: AcceptedCredentials;
  /**
   * Scopes the route needs: a list (an API key must hold all of them), `{ allOf: [...] }` (the
   * same) or `{ anyOf: [...] }` (at least one). A JWT holds every scope.
   */
  scopes?: ScopeRequirement;
  /**
   * The route template usage is recorded under, `"PUT /profiles/:slug"` (or just the path when
   * the method is known, as in `authenticate`). Never the raw path: `/profiles/alice` would make
   * one usage row per profile.
   */
  route?: string;
  /**
   * The client's address as your framework resolves it (behind a proxy: the address the proxy
   * reports, per the framework's trust-proxy setting; never a header the client sets itself). The
   * adapters pass it. With it, well-formed keys that find nothing are limited per address
   * (`failedLookups` in the config); without it, nothing is limited per address.
   */
  clientIp?: string | undefined;
  /**
   * Credits this request spends from a key that has credits (`keys.setLimits`); default 1. Keys
   * without credits ignore it; rate limits and quotas count one request whatever the cost.
   */
  cost?: number;
  /**
   * Only keys of this environment (`keys.environments`) pass; a key of another is refused
   * with 401 `invalid_api_key`, before any lookup. Default: every environment. Sessions ignore it.
   */
  environment?: string | undefined;
  /**
   * The resources this request is about, by kind: `{ profile: req.params.slug }`. A key limited to
   * resources (`permissions()`) that names a kind here must list this id, or it is refused with 403
   * `resource_not_allowed`; a key not limited to resources, or not limiting that kind, passes. Checked
   * from the key record alone: no store call.
   */
  resource?: Readonly<Record<string, string>> | undefined;
}

export type VerifyResult =
  | {
      ok: true;
      principal: Principal;
      rateLimit: RateLimitDecision;
      /** `X-RateLimit-*` (and, when configured, IETF) headers to put on the response. */
      headers: Record<string, string>;
    }
  | {
      ok: false;
      error: KeywardError;
      /** Present when the request got as far as the rate limiter. */
      rateLimit?: RateLimitDecision;
      /**
       * Headers the refusal must carry: the `WWW-Authenticate` challenge on a 401, the rate-limit
       * headers (and `Retry-After`) on a 429. `error.toResponse(headers)` includes them.
       */
      headers: Record<string, string>;
    };
