import type { Keyward, RateLimitDecision, VerifyOptions } from "@keyward/core";
import { guardOptions, withHeaders } from "@keyward/core/toolkit";
import type { Principal } from "./types.js";

/**
 * `verify`'s options (`VerifyOptions`: `scopes`, `accept`, `cost`, `environment`, and every one a
 * listed feature declares, such as `agentTokens()`' `audience`), all passed on as given, with the
 * route, and the client address and resources read from the request. A malformed scope
 * requirement, a scope or an environment that is not configured throws when the guard is created.
 *
 * @typeParam Context what the server passes to its handler after the request, and the guarded
 *   handler passes on to `clientIp`: `[server: Bun.Server]` on Bun, `[info: Deno.ServeHandlerInfo]`
 *   on Deno; none elsewhere.
 */
export interface WithApiKeyOptions<Context extends unknown[] = []>
  extends Omit<VerifyOptions, "route" | "clientIp" | "resource"> {
  /**
   * The route template usage is recorded under: `"/profiles/:slug"` (the request's method is put
   * in front) or `"PUT /profiles/:slug"`. Never the raw path, or every slug becomes its own row.
   */
  route: string;
  /**
   * The client's address. A Fetch `Request` carries none, so each server has its own way; without
   * this option unknown keys are not limited per address (`failedLookups`) and keys with an IP allowlist
   * are refused (403). Behind a proxy, use
   * the address your proxy reports, never a header a client could set itself:
   * - Bun: `(request, server) => server.requestIP(request)?.address`
   * - Deno: `(request, info) => info.remoteAddr.hostname`
   * - srvx (Node, Bun, Deno): `(request) => request.ip`
   * - Cloudflare Workers: `(request) => request.headers.get("cf-connecting-ip") ?? undefined`
   * - one trusted proxy in front: the last `X-Forwarded-For` entry, the one it appended
   */
  clientIp?: (request: Request, ...context: Context) => string | null | undefined;
  /**
   * The resources a request is about, by kind, from the request: `(request) => ({ profile: new URL(request.url).pathname.split("/").at(-1)! })`. A key limited to
   * resources (`permissions()`) that limits one of these kinds must list the id, or it is refused
   * with 403 `resource_not_allowed`. Read from the key record: no store call.
   */
  resource?: (
    request: Request,
    ...context: Context
  ) => Readonly<Record<string, string>> | undefined;
}

/** A host route behind the guard: it runs only for an admitted request, and knows who sent it. */
export type ApiKeyHandler = (
  request: Request,
  principal: Principal,
  rateLimit: RateLimitDecision,
) => Response | Promise<Response>;

/**
 * Guards a host route. A refused request gets Keyward's error response (401, 403 or 429 with
 * `Retry-After`) and `handler` never runs; an admitted one runs `handler` with the principal, and
 * whatever it returns leaves with the `X-RateLimit-*` headers added. Whatever the server passes
 * after the request (Bun's `server`, Deno's `info`) is handed to `clientIp`.
 *
 * @example
 * const getProfile = withApiKey(
 *   keyward,
 *   {
 *     scopes: ["profile:read"],
 *     route: "/api/v1/profiles/:slug",
 *     clientIp: (request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => info.remoteAddr.hostname,
 *   },
 *   (request, principal) => Response.json({ viewer: principal.userId }),
 * );
 * Deno.serve((request, info) => getProfile(request, info));
 */
export function withApiKey<Context extends unknown[] = []>(
  keyward: Keyward,
  options: WithApiKeyOptions<Context>,
  handler: ApiKeyHandler,
): (request: Request, ...context: Context) => Promise<Response> {
  // The guard's own; every other option goes to verify as given (a feature's `audience` too).
  const { route, clientIp: clientIpOf, resource: resourceOf, ...fixed } = options;
  // A scope nobody can hold would refuse every key: fail now, naming it.
  if (fixed.scopes) keyward.assertScopes(fixed.scopes);
  if (fixed.environment !== undefined) keyward.assertEnvironment(fixed.environment);
  const optionsFor = guardOptions(fixed);
  return async (request, ...context) => {
    const clientIp = clientIpOf ? (clientIpOf(request, ...context) ?? undefined) : undefined;
    const resource = resourceOf ? resourceOf(request, ...context) : undefined;
    const result = await keyward.authenticate(request, optionsFor({ route, clientIp, resource }));
    if (!result.ok) return result.error.toResponse(result.headers);
    const response = await handler(request, result.principal, result.rateLimit);
    return withHeaders(response, result.headers);
  };
}
