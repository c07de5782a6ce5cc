import type { AcceptedCredentials, Keyward, ScopeRequirement, VerifyOptions } from "@keyward/core";
import { routeWithMethod, withHeaders } from "@keyward/core/toolkit";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import {
  type ClientAddressOptions,
  type ClientAddressResolver,
  clientAddressResolver,
} from "./client-address.js";
import { type MountedKeyward, mountedKeyward } from "./mounted-keyward.js";
import type { KeywardEnv } from "./types.js";

/**
 * `getConnInfo` and `clientIp` here override those given to `keyward()`, for this route; without
 * either (here or there) there is no client address.
 */
export interface RequireApiKeyOptions extends ClientAddressOptions {
  /**
   * Scopes the route needs: a list or `{ allOf: [...] }` (an API key must hold all of them), or
   * `{ anyOf: [...] }` (at least one). A user's JWT holds every scope. A malformed requirement or
   * a scope that is not configured throws when the guard is created.
   */
  scopes?: ScopeRequirement;
  /**
   * The route template usage is recorded under. By default the path the guard is registered with
   * (`routePath(c)`): right when the guard sits on the route itself, but `/api/*` for one mounted
   * with `app.use("/api/*", ...)`, so pass the template there: `"/api/v1/profiles/:slug"` (the
   * request's method is put in front) or with a method.
   */
  route?: string;
  /**
   * Which credentials the route takes: `"any"` (default: an API key, or a user's session acting
   * with every scope), `"api-key"` (sessions get 401) or `"session"` (API keys get 403).
   */
  accept?: AcceptedCredentials;
  /**
   * Credits this route spends per request from a key that has credits (default 1); see
   * docs/limits.md. Rate limits and quotas count one request whatever the cost.
   */
  cost?: number;
  /**
   * Only keys of this environment pass (`keys.environments`, e.g. `"live"`); a key of
   * another is refused with 401 before any lookup. Default: every environment. An environment
   * that is not configured throws when the guard is created.
   */
  environment?: string;
  /**
   * The resources a request is about, by kind, from the request: `(c) => ({ profile: c.req.param("slug") })`. A key limited to
   * resources (`permissions()`) that limits one of these kinds must list the id, or it is refused
   * with 403 `resource_not_allowed`. Read from the key record: no store call.
   */
  resource?: (c: Context) => Readonly<Record<string, string>> | undefined;
}

/**
 * Guards a route: a request with a valid API key (or session) that holds the scopes runs the
 * route, with `c.get("keyward")` = `{ principal, rateLimit }` and the `X-RateLimit-*` headers added
 * to whatever it answers; any other gets Keyward's 401, 403 or 429 and the route never runs.
 *
 * Without an instance it uses the one `app.use(keyward(instance))` mounted, and checks the scopes
 * against it on the first request; with one, the scopes are checked now (a typo fails at start).
 *
 * @example
 * app.put("/api/v1/profiles/:slug", requireApiKey({ scopes: ["profile:write"] }), (c) =>
 *   c.json({ updatedBy: c.get("keyward").principal.userId }),
 * );
 * // Or without `keyward()` in front, for this route only:
 * app.get("/reports", requireApiKey(keywardInstance, { scopes: ["reports:read"], accept: "api-key" }), handler);
 */
export function requireApiKey(options?: RequireApiKeyOptions): MiddlewareHandler<KeywardEnv>;
export function requireApiKey(
  instance: Keyward,
  options?: RequireApiKeyOptions,
): MiddlewareHandler<KeywardEnv>;
export function requireApiKey(
  first?: Keyward | RequireApiKeyOptions,
  second?: RequireApiKeyOptions,
): MiddlewareHandler<KeywardEnv> {
  const own = isKeyward(first) ? first : undefined;
  const options = (own ? second : (first as RequireApiKeyOptions | undefined)) ?? {};
  const { scopes, accept, cost, environment } = options;
  // A scope or environment nobody can hold would refuse every key: fail now, naming it.
  if (own && scopes) own.assertScopes(scopes);
  if (own && environment !== undefined) own.assertEnvironment(environment);
  const fixed: VerifyOptions = { scopes, accept, cost, environment };
  const checked = new WeakSet<Keyward>();
  const ownClientIp =
    options.getConnInfo || options.clientIp ? clientAddressResolver(options) : undefined;

  return async (c, next) => {
    const mounted = resolve(c, own);
    const { keyward } = mounted;
    const clientIp = ownClientIp ?? mounted.clientIp;
    if ((scopes || environment !== undefined) && !checked.has(keyward)) {
      if (scopes) keyward.assertScopes(scopes);
      if (environment !== undefined) keyward.assertEnvironment(environment);
      checked.add(keyward);
    }
    // A literal, not `{ ...fixed, route, clientIp }`: on V8 a spread followed by new properties
    // costs microseconds per request (docs/benchmarks.md, "HTTP"); unset options stay undefined.
    const result = await keyward.authenticate(c.req.raw, {
      scopes: fixed.scopes,
      accept: fixed.accept,
      cost: fixed.cost,
      environment: fixed.environment,
      route: routeWithMethod(c.req.method, options.route ?? routePath(c)),
      clientIp: clientIp(c) ?? undefined,
      resource: options.resource === undefined ? undefined : options.resource(c),
    });
    if (!result.ok) return result.error.toResponse(result.headers);
    c.set("keyward", { principal: result.principal, rateLimit: result.rateLimit });
    await next();
    c.res = withHeaders(c.res, result.headers);
  };
}

/**
 * Guards a route with the scopes it needs, using the instance `app.use(keyward(...))` mounted:
 * `requireApiKey({ scopes })` in short.
 *
 * @example
 * app.get("/api/v1/profiles/:slug", requireScopes("profile:read"), (c) =>
 *   c.json({ viewer: c.get("keyward").principal.userId }),
 * );
 */
export function requireScopes(...scopes: string[]): MiddlewareHandler<KeywardEnv> {
  return requireApiKey({ scopes });
}

const noAddress: ClientAddressResolver = () => undefined;

function resolve(c: Context, own: Keyward | undefined): MountedKeyward {
  const mounted = mountedKeyward(c);
  if (own) {
    // The instance given here; the client address as `keyward()` resolves it, when it ran.
    return { keyward: own, clientIp: mounted?.clientIp ?? noAddress };
  }
  if (!mounted) {
    throw new Error(
      "@keyward/hono: requireApiKey/requireScopes found no Keyward instance: register " +
        "app.use(keyward(instance)) before the guarded routes, or pass the instance: requireApiKey(instance, options)",
    );
  }
  return mounted;
}

function isKeyward(value: unknown): value is Keyward {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Keyward).handle === "function" &&
    typeof (value as Keyward).authenticate === "function"
  );
}
