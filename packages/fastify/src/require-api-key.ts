import type { Keyward, VerifyResult } from "@keyward/core";
import { headerValue, toHeadersOnlyRequest } from "@keyward/core/node-http";
import { guardOptions, isPromise, routeWithMethod, verifyPending } from "@keyward/core/toolkit";
import type {
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  preHandlerHookHandler,
} from "fastify";
import { sendReply } from "./send-reply.js";
import type { RequireApiKeyOptions } from "./types.js";

/**
 * The guard behind `fastify.requireApiKey(options)`. Usage is recorded under
 * `METHOD request.routeOptions.url` — the route template with its prefix, never the raw path.
 * The client address is `request.ip`, so Fastify's `trustProxy` option decides whether
 * `X-Forwarded-For` counts.
 */
export function createRequireApiKey(
  keyward: Keyward,
  options: RequireApiKeyOptions = {},
): preHandlerHookHandler {
  // The guard's own; every other option goes to verify as given (a feature's `audience` too).
  const { route: fixedRoute, resource: resourceOf, ...fixed } = options;
  // A scope nobody can hold would refuse every key: fail now, naming it.
  if (fixed.scopes) keyward.assertScopes(fixed.scopes);
  if (fixed.environment !== undefined) keyward.assertEnvironment(fixed.environment);
  const optionsFor = guardOptions(fixed);
  /** Admitted: the headers and `request.keyward`, then on. Refused: the answer, and no `done`. */
  const finish = (
    result: VerifyResult,
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ) => {
    if (!result.ok) {
      sendReply(reply, result.error.toResponse(result.headers)).catch(done);
      return;
    }
    reply.headers(result.headers);
    request.keyward = { principal: result.principal, rateLimit: result.rateLimit };
    done();
  };
  // A callback hook, not an async one: a request decided without I/O (the memory store, a cached
  // key) goes on to the handler at once, with no promise between (docs/benchmarks.md, "HTTP").
  return (request, reply, done) => {
    // A not-found handler has no route: its requests are all one "*".
    const template = fixedRoute ?? request.routeOptions.url ?? "*";
    const route = routeWithMethod(request.method, template);
    // Every Authorization line, joined: two of them are refused, as on the key-management routes.
    const authorization = headerValue(request.raw.rawHeaders, "authorization");
    // request.ip is the socket's address, or with `trustProxy` set, the client address the trusted
    // proxies report: the address unknown keys are counted against (`failedLookups`).
    const clientIp = request.ip;
    const resource = resourceOf === undefined ? undefined : resourceOf(request);
    const verifyOptions = optionsFor({ route, clientIp, resource });
    // Without a bearer token, the host's session (a cookie) may stand for the user.
    const decided =
      authorization === undefined && keyward.hasSession
        ? keyward.authenticate(
            toHeadersOnlyRequest(
              request.raw,
              `${request.protocol}://${request.host}`,
              request.raw.url ?? "/",
            ),
            verifyOptions,
          )
        : verifyPending(keyward, authorization, verifyOptions);
    if (isPromise(decided)) decided.then((result) => finish(result, request, reply, done), done);
    else finish(decided, request, reply, done);
  };
}

/**
 * A preHandler guarding a route with an instance of its own rather than the plugin's: a protected
 * resource's view of it (`protectedResource(...).guard(keyward)`, `@keyward/core/agent-tokens`),
 * whose refusals carry the resource's challenges. Otherwise as `fastify.requireApiKey(options)`.
 *
 * @example
 * app.post("/mcp", { preHandler: requireApiKey(mcp.guard(keyward), { scopes: ["profile:read"] }) }, handler);
 */
export function requireApiKey(
  keyward: Keyward,
  options: RequireApiKeyOptions = {},
): preHandlerHookHandler {
  return createRequireApiKey(keyward, options);
}
