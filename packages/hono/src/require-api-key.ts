import type { Keyward, VerifyOptions } from "@keyward/core";
import { guardOptions, routeWithMethod, withHeaders } from "@keyward/core/toolkit";
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
 * `verify`'s options (`VerifyOptions`: `scopes`, `accept`, `cost`, `environment`, and every one a
 * listed feature declares, such as `agentTokens()`' `audience`), all passed on as given, with the
 * route, the client address and the resources read from the request. A malformed scope
 * requirement, a scope or an environment that is not configured throws when the guard is created
 * (with an instance given here; else on the first request).
 *
 * `getConnInfo` and `clientIp` here override those given to `keyward()`, for this route; without
 * either (here or there) there is no client address.
 */
export interface RequireApiKeyOptions
  extends ClientAddressOptions,
    Omit<VerifyOptions, "route" | "clientIp" | "resource"> {
  /**
   * The route template usage is recorded under. By default the path the guard is registered with
   * (`routePath(c)`): right when the guard sits on the route itself, but `/api/*` for one mounted
   * with `app.use("/api/*", ...)`, so pass the template there: `"/api/v1/profiles/:slug"` (the
   * request's method is put in front) or with a method.
   */
  route?: string;
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
  // The guard's own; every other option goes to verify as given (a feature's `audience` too).
  const { route, resource: resourceOf, getConnInfo: _conn, clientIp: _address, ...fixed } = options;
  const { scopes, environment } = fixed;
  // A scope or environment nobody can hold would refuse every key: fail now, naming it.
  if (own && scopes) own.assertScopes(scopes);
  if (own && environment !== undefined) own.assertEnvironment(environment);
  const optionsFor = guardOptions(fixed);
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
    const result = await keyward.authenticate(
      c.req.raw,
      optionsFor({
        route: routeWithMethod(c.req.method, route ?? routePath(c)),
        clientIp: clientIp(c) ?? undefined,
        resource: resourceOf === undefined ? undefined : resourceOf(c),
      }),
    );
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
