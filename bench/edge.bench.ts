/**
 * The guard's cost without sockets: each framework's whole request pipeline run in-process, one
 * request at a time, for the bare route, the route sending the same three `X-RateLimit-*` headers,
 * Keyward's guard and the framework's usual rate limiter, all in one mitata run. Fastify and Express
 * through light-my-request (a fake socket, the framework's real router, hooks and reply), Fetch by
 * calling the handler with a `Request`. Complements `http/run.ts`: no load generator competes for
 * the CPU, so on a busy machine the ratios here hold better than requests per second do.
 *
 * @example
 * npx pnpm@10 bench edge.bench.ts
 */
import rateLimit from "@fastify/rate-limit";
import type { Keyward } from "@keyward/core";
import { requireApiKey } from "@keyward/express";
import { keywardPlugin } from "@keyward/fastify";
import { withApiKey } from "@keyward/fetch";
import express, { type RequestHandler } from "express";
import { rateLimit as expressRateLimit } from "express-rate-limit";
import Fastify, { type preHandlerHookHandler } from "fastify";
import inject from "light-my-request";
import { bench, do_not_optimize, group, summary } from "mitata";
import {
  benchKeyward,
  neverRefused,
  requiredScopes,
  routePath,
  staticRateLimitHeaders,
  type Variant,
} from "./http/servers/variant.js";

const url = "/api/v1/profiles/bench";

async function fastifyApp(variant: Variant, keyward: Keyward) {
  const app = Fastify({ logger: false });
  let preHandler: preHandlerHookHandler | undefined;
  if (variant === "guard") {
    await app.register(keywardPlugin, { keyward });
    preHandler = app.requireApiKey({ scopes: requiredScopes });
  }
  if (variant === "limiter")
    await app.register(rateLimit, { max: neverRefused, timeWindow: 60_000 });
  app.get<{ Params: { slug: string } }>(
    routePath,
    preHandler ? { preHandler } : {},
    async (request, reply) => {
      if (variant === "headers") reply.headers(staticRateLimitHeaders());
      return { slug: request.params.slug };
    },
  );
  await app.ready();
  return app;
}

function expressApp(variant: Variant, keyward: Keyward) {
  const app = express();
  const guards: RequestHandler[] = [];
  if (variant === "guard") guards.push(requireApiKey(keyward, { scopes: requiredScopes }));
  if (variant === "limiter") {
    guards.push(
      expressRateLimit({
        windowMs: 60_000,
        limit: neverRefused,
        legacyHeaders: true,
        standardHeaders: false,
      }),
    );
  }
  app.get(routePath, ...guards, (req, res) => {
    if (variant === "headers") res.set(staticRateLimitHeaders());
    res.json({ slug: req.params.slug });
  });
  return app;
}

function fetchHandler(variant: Variant, keyward: Keyward): (request: Request) => Promise<Response> {
  const prefix = "/api/v1/profiles/";
  const profile = (request: Request) =>
    Response.json({ slug: new URL(request.url).pathname.slice(prefix.length) });
  if (variant === "guard") {
    return withApiKey(keyward, { route: routePath, scopes: requiredScopes }, profile);
  }
  return async (request) => {
    const response = profile(request);
    if (variant === "headers") {
      const headers = staticRateLimitHeaders();
      for (const name in headers) response.headers.set(name, headers[name]!);
    }
    return response;
  };
}

const frameworkVariants: Variant[] = ["bare", "headers", "guard", "limiter"];
const { keyward, authorization } = await benchKeyward();
const headers = { authorization };

const fastifyApps = new Map<Variant, Awaited<ReturnType<typeof fastifyApp>>>();
const expressApps = new Map<Variant, ReturnType<typeof expressApp>>();
const fetchHandlers = new Map<Variant, ReturnType<typeof fetchHandler>>();
for (const variant of frameworkVariants) {
  fastifyApps.set(variant, await fastifyApp(variant, keyward));
  expressApps.set(variant, expressApp(variant, keyward));
  if (variant !== "limiter") fetchHandlers.set(variant, fetchHandler(variant, keyward));
}

// Every variant must answer 200 before it is timed, or a refusal would be measured.
for (const variant of frameworkVariants) {
  const viaFastify = await fastifyApps.get(variant)!.inject({ url, headers });
  const viaExpress = await inject(expressApps.get(variant)! as never, { url, headers });
  const viaFetch = await fetchHandlers.get(variant)?.(
    new Request(`http://localhost${url}`, { headers }),
  );
  for (const [name, status] of [
    ["fastify", viaFastify.statusCode],
    ["express", viaExpress.statusCode],
    ["fetch", viaFetch?.status ?? 200],
  ] as const) {
    if (status !== 200) throw new Error(`${name} ${variant}: ${status}`);
  }
}

summary(() => {
  group("Fastify (light-my-request): one request through the whole pipeline", () => {
    for (const variant of frameworkVariants) {
      const app = fastifyApps.get(variant)!;
      bench(`fastify ${variant}`, async () =>
        do_not_optimize(await app.inject({ url, headers })),
      ).baseline(variant === "bare");
    }
  });
});
summary(() => {
  group("Express (light-my-request): one request through the whole pipeline", () => {
    for (const variant of frameworkVariants) {
      const app = expressApps.get(variant)! as never;
      bench(`express ${variant}`, async () =>
        do_not_optimize(await inject(app, { url, headers })),
      ).baseline(variant === "bare");
    }
  });
});
summary(() => {
  group("Fetch handler: one Request in, one Response out", () => {
    for (const [variant, handler] of fetchHandlers) {
      bench(`fetch ${variant}`, async () =>
        do_not_optimize(await handler(new Request(`http://localhost${url}`, { headers }))),
      ).baseline(variant === "bare");
    }
  });
});

export async function teardown(): Promise<void> {
  for (const app of fastifyApps.values()) await app.close();
  await keyward.close();
}
