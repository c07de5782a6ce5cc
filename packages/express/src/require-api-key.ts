import type { Keyward, VerifyOptions, VerifyResult } from "@keyward/core";
import { headerValue, toHeadersOnlyRequest } from "@keyward/core/node-http";
import { guardOptions, isPromise, routeWithMethod, verifyPending } from "@keyward/core/toolkit";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { sendResponse } from "./send-response.js";

/**
 * `verify`'s options (`VerifyOptions`: `scopes`, `accept`, `cost`, `environment`, and every one a
 * listed feature declares, such as `agentTokens()`' `audience`), all passed on as given, with the
 * route and the resources read from the request, and the client address the guard's own (`req.ip`).
 * A malformed scope requirement, a scope or an environment that is not configured throws when the
 * guard is created.
 */
export interface RequireApiKeyOptions
  extends Omit<VerifyOptions, "route" | "clientIp" | "resource"> {
  /**
   * The route template usage is recorded under, when Express cannot tell it: a router mounted on a
   * path with parameters (`app.use("/orgs/:org", router)`) has the raw path in `req.baseUrl`.
   * `"/orgs/:org/profiles/:slug"` (the request's method is put in front) or with a method.
   */
  route?: string;
  /**
   * The resources a request is about, by kind, from the request: `(req) => ({ profile: req.params.slug })`. A key limited to
   * resources (`permissions()`) that limits one of these kinds must list the id, or it is refused
   * with 403 `resource_not_allowed`. Read from the key record: no store call.
   */
  resource?: (req: Request) => Readonly<Record<string, string>> | undefined;
}

/**
 * Express middleware guarding a host route with an API key (or a user's JWT, which holds every
 * scope). An admitted request gets `req.keyward = { principal, rateLimit }` and the `X-RateLimit-*`
 * headers on its response; a refused one is answered here with Keyward's `{"detail": ...}` body
 * (401, 403, or 429 with `Retry-After`) and goes no further.
 *
 * Usage is recorded under `METHOD baseUrl + req.route.path` — the route template, never the raw
 * path. Mounted with `app.use(...)` there is no route: it records `baseUrl + "*"` instead.
 *
 * The client address is `req.ip`, so Express's `trust proxy` setting decides whether
 * `X-Forwarded-For` counts: set it to your proxies (e.g. `app.set("trust proxy", "loopback")`)
 * behind a load balancer, or every client shares the balancer's failed-lookup budget and keys
 * with an IP allowlist see the balancer's address.
 *
 * @example
 * app.get("/api/v1/profiles/:slug", requireApiKey(keyward, { scopes: ["profile:read"] }), (req, res) => {
 *   res.json({ slug: req.params.slug, viewer: req.keyward!.principal.userId });
 * });
 */
export function requireApiKey(
  keyward: Keyward,
  options: RequireApiKeyOptions = {},
): RequestHandler {
  // The guard's own; every other option goes to verify as given (a feature's `audience` too).
  const { route: fixedRoute, resource: resourceOf, ...fixed } = options;
  // A scope nobody can hold would refuse every key: fail now, naming it.
  if (fixed.scopes) keyward.assertScopes(fixed.scopes);
  if (fixed.environment !== undefined) keyward.assertEnvironment(fixed.environment);
  const optionsFor = guardOptions(fixed);
  return (req, res, next) => {
    const template = fixedRoute ?? routeTemplate(req);
    const route = routeWithMethod(req.method, template);
    // Every Authorization line, joined: two of them are refused, as on the key-management routes.
    const authorization = headerValue(req.rawHeaders, "authorization");
    // req.ip is the socket's address, or with `trust proxy` set, the client address the trusted
    // proxies report: the address unknown keys are counted against (`failedLookups`).
    const clientIp = req.ip;
    const resource = resourceOf === undefined ? undefined : resourceOf(req);
    const verifyOptions = optionsFor({ route, clientIp, resource });
    // Without a bearer token, the host's session (a cookie) may stand for the user.
    const decided =
      authorization === undefined && keyward.hasSession
        ? keyward.authenticate(
            toHeadersOnlyRequest(
              req,
              `${req.protocol}://${req.get("host") ?? "localhost"}`,
              req.originalUrl,
            ),
            verifyOptions,
          )
        : verifyPending(keyward, authorization, verifyOptions);
    // Decided without I/O (the memory store, a cached key): on at once, no promise between.
    if (isPromise(decided)) decided.then((result) => finish(result, req, res, next), next);
    else finish(decided, req, res, next);
  };
}

/** Admitted: the headers and `req.keyward`, then `next()`. Refused: the answer. */
function finish(result: VerifyResult, req: Request, res: Response, next: NextFunction): void {
  if (!result.ok) {
    sendResponse(res, result.error.toResponse(result.headers)).catch(next);
    return;
  }
  const headers = result.headers;
  for (const name in headers) res.setHeader(name, headers[name]!);
  req.keyward = { principal: result.principal, rateLimit: result.rateLimit };
  next();
}

/** `req.baseUrl` + the matched route's path; `req.route` is absent under `app.use`. */
function routeTemplate(req: Request): string {
  const path: unknown = req.route?.path;
  if (path === undefined || path === null) return `${req.baseUrl}*`;
  // A RegExp or an array of paths is still a template, just not a pretty one.
  return `${req.baseUrl}${typeof path === "string" ? path : String(path)}`;
}
