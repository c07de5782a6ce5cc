import type {
  AcceptedCredentials,
  Keyward,
  Principal,
  RateLimitDecision,
  ScopeRequirement,
} from "@keyward/core";
import type { FastifyRequest, preHandlerHookHandler } from "fastify";

// Core's own types, re-exported so a host imports them from the adapter it uses.
export type { Principal, VerifyResult } from "@keyward/core";

/** What the guard leaves on `request.keyward` for the handler after it. */
export interface KeywardRequestState {
  principal: Principal;
  /** Where the caller stands against its rate limit after this request. */
  rateLimit: RateLimitDecision;
}

export interface RequireApiKeyOptions {
  /**
   * Scopes the route needs: a list or `{ allOf: [...] }` (an API key must hold all of them), or
   * `{ anyOf: [...] }` (at least one). A user's JWT holds every scope. A malformed requirement or
   * a scope that is not configured throws when the guard is created.
   */
  scopes?: ScopeRequirement;
  /**
   * The route template usage is recorded under; default the route's own, `request.routeOptions.url`.
   * `"/profiles/:slug"` (the request's method is put in front) or with a method.
   */
  route?: string;
  /**
   * Which credentials the route takes: `"any"` (default: an API key, or a user's session acting
   * with every scope), `"api-key"` (sessions get 401) or `"session"` (API keys get 403).
   */
  accept?: AcceptedCredentials;
  /**
   * Credits a request here spends from a key that has credits (`keys.setLimits`); default 1.
   * Rate limits and quotas count one request whatever the cost.
   */
  cost?: number;
  /**
   * Only keys of this environment pass (`keys.environments`, e.g. `"live"`); a key of
   * another is refused with 401 before any lookup. Default: every environment. An environment
   * that is not configured throws when the guard is created.
   */
  environment?: string;
  /**
   * The resources a request is about, by kind, from the request: `(request) => ({ profile: (request.params as { slug: string }).slug })`. A key limited to
   * resources (`permissions()`) that limits one of these kinds must list the id, or it is refused
   * with 403 `resource_not_allowed`. Read from the key record: no store call.
   */
  resource?: (request: FastifyRequest) => Readonly<Record<string, string>> | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    /** The Keyward instance the plugin was registered with. */
    keyward: Keyward;
    /**
     * A `preHandler` that admits a request with a valid API key holding `scopes` (or a user's JWT),
     * sets `request.keyward` and the `X-RateLimit-*` headers, and answers every refusal itself.
     */
    requireApiKey(options?: RequireApiKeyOptions): preHandlerHookHandler;
  }
  interface FastifyRequest {
    /** Set by `requireApiKey` on the requests it admits; `null` on unguarded routes. */
    keyward: KeywardRequestState | null;
  }
}
