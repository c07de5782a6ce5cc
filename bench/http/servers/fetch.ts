/**
 * The Fetch API server of the HTTP benchmark, on srvx, which serves with the runtime's own HTTP
 * server: Node's `http`, `Bun.serve` or `Deno.serve`. One variant per process
 * (`HTTP_BENCH_VARIANT`); Fetch has no usual rate limiter, so there is no `limiter` variant.
 */
import { withApiKey } from "@keyward/fetch";
import { serve } from "srvx";
import {
  announceReady,
  benchKeyward,
  floorCheck,
  requiredScopes,
  staticRateLimitHeaders,
  variantFromEnv,
} from "./variant.js";

const variant = variantFromEnv();
if (variant === "limiter") throw new Error("the Fetch server has no usual rate limiter");
const { keyward, authorization } = await benchKeyward();

const prefix = "/api/v1/profiles/";
/** The route's own handler: the slug from the path, as a JSON body. */
const profile = (request: Request): Response => {
  const { pathname } = new URL(request.url);
  return Response.json({ slug: pathname.slice(prefix.length) });
};
const notFound = () => new Response(null, { status: 404 });
const guarded = withApiKey(
  keyward,
  { route: "/api/v1/profiles/:slug", scopes: requiredScopes },
  profile,
);

/** The route, sending the three headers itself. */
const withStaticHeaders = (request: Request) => {
  const response = profile(request);
  const headers = staticRateLimitHeaders();
  for (const name in headers) response.headers.set(name, headers[name]!);
  return response;
};
const check = floorCheck(authorization);
const handler: (request: Request) => Response | Promise<Response> =
  variant === "guard"
    ? guarded
    : variant === "headers"
      ? withStaticHeaders
      : variant === "floor"
        ? (request) =>
            check(request.headers.get("authorization") ?? undefined)
              ? withStaticHeaders(request)
              : Response.json({ detail: "Invalid API key" }, { status: 401 })
        : profile;

const server = serve({
  port: 0,
  hostname: "127.0.0.1",
  silent: true,
  gracefulShutdown: false,
  fetch: (request) =>
    new URL(request.url).pathname.startsWith(prefix) ? handler(request) : notFound(),
});
await server.ready();
await announceReady(Number(new URL(server.url!).port), authorization);
