import type { Keyward, Principal, RateLimitDecision, VerifyOptions } from "@keyward/core";
import type { FastifyRequest, preHandlerHookHandler } from "fastify";

// Core's own types, re-exported so a host imports them from the adapter it uses.
export type { Principal, VerifyResult } from "@keyward/core";

/** What the guard leaves on `request.keyward` for the handler after it. */
export interface KeywardRequestState {
  principal: Principal;
  /** Where the caller stands against its rate limit after this request. */
  rateLimit: RateLimitDecision;
}

/**
 * `verify`'s options (`VerifyOptions`: `scopes`, `accept`, `cost`, `environment`, and every one a
 * listed feature declares, such as `agentTokens()`' `audience`), all passed on as given, with the
 * route and the resources read from the request, and the client address the guard's own
 * (`request.ip`). A malformed scope requirement, a scope or an environment that is not configured
 * throws when the guard is created.
 */
export interface RequireApiKeyOptions
  extends Omit<VerifyOptions, "route" | "clientIp" | "resource"> {
  /**
   * The route template usage is recorded under; default the route's own, `request.routeOptions.url`.
   * `"/profiles/:slug"` (the request's method is put in front) or with a method.
   */
  route?: string;
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
