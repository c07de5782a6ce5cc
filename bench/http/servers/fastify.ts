/** The Fastify server of the HTTP benchmark, one variant per process (`HTTP_BENCH_VARIANT`). */
import rateLimit from "@fastify/rate-limit";
import { keywardPlugin } from "@keyward/fastify";
import Fastify, { type preHandlerHookHandler } from "fastify";
import {
  announceReady,
  benchKeyward,
  floorCheck,
  neverRefused,
  requiredScopes,
  routePath,
  staticRateLimitHeaders,
  variantFromEnv,
} from "./variant.js";

const variant = variantFromEnv();
const { keyward, authorization } = await benchKeyward();
const app = Fastify({ logger: false });

let preHandler: preHandlerHookHandler | undefined;
if (variant === "guard") {
  await app.register(keywardPlugin, { keyward });
  preHandler = app.requireApiKey({ scopes: requiredScopes });
}
if (variant === "floor") {
  const check = floorCheck(authorization);
  preHandler = (request, reply, done) => {
    if (!check(request.headers.authorization)) {
      reply.code(401).send({ detail: "Invalid API key" });
      return;
    }
    reply.headers(staticRateLimitHeaders());
    done();
  };
}
if (variant === "limiter") {
  // Its defaults (in-memory store keyed by the client address, the X-RateLimit-* headers).
  await app.register(rateLimit, { max: neverRefused, timeWindow: 60_000 });
}
const sendHeaders = variant === "headers";
app.get<{ Params: { slug: string } }>(
  routePath,
  preHandler ? { preHandler } : {},
  async (request, reply) => {
    if (sendHeaders) reply.headers(staticRateLimitHeaders());
    return { slug: request.params.slug };
  },
);

await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
if (address === null || typeof address === "string") throw new Error("no TCP address");
await announceReady(address.port, authorization);
