/**
 * The demo contract (`@keyward/testing/demo-contract`) on Fastify: Keyward configured with the demo scopes and tiers, the
 * plugin, the two profile routes behind `requireApiKey` and the Node adapter suite's
 * `GET /guarded`, on a host that keeps Fastify's own JSON parser.
 */
import type { Keyward } from "@keyward/core";
import {
  type DemoKeyward,
  type NodeAdapterHost,
  PROFILE_ROUTE,
  demoKeyward as sharedDemoKeyward,
} from "@keyward/testing";
import { profileResource, readProfile, updateProfile } from "@keyward/testing/demo-contract";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { keywardPlugin } from "../src/index.js";

export const jwtSecret = "fastify-adapter-test-secret-of-at-least-32-bytes";

/** A Keyward on the demo contract with an in-memory store (see `demoKeyward` of `@keyward/testing`). */
export function demoKeyward(overrides: Parameters<typeof sharedDemoKeyward>[1] = {}): DemoKeyward {
  return sharedDemoKeyward(jwtSecret, overrides);
}

/**
 * With `host.prefix`, only the plugin, registered in a context with that prefix: its decorators
 * stay in that context, so the guarded routes are left out (the Node adapter suite needs none).
 */
/** The demo contract v0.3: the profile routes are about the profile their slug names. */
const resource = (request: FastifyRequest) =>
  profileResource((request.params as { slug: string }).slug);

export async function demoApp(
  keyward: Keyward,
  host: NodeAdapterHost = {},
): Promise<FastifyInstance> {
  // request.ip, so Fastify's `trustProxy` decides whether X-Forwarded-For counts.
  const app = Fastify(host.trustLoopbackProxy ? { trustProxy: "loopback" } : {});
  if (host.prefix !== undefined) {
    await app.register(
      async (context) => {
        await context.register(keywardPlugin, { keyward });
      },
      { prefix: host.prefix },
    );
    return app;
  }
  await app.register(keywardPlugin, { keyward });
  app.get<{ Params: { slug: string } }>(
    PROFILE_ROUTE,
    { preHandler: app.requireApiKey({ scopes: ["profile:read"], resource }) },
    async (request) => readProfile(request.params.slug, request.keyward!.principal),
  );
  app.put<{ Params: { slug: string }; Body: { displayName?: string } }>(
    PROFILE_ROUTE,
    { preHandler: app.requireApiKey({ scopes: ["profile:write"], resource }) },
    async (request) => updateProfile(request.params.slug, request.keyward!.principal),
  );
  app.get("/guarded", { preHandler: app.requireApiKey(host.guard) }, async (request) => {
    host.onGuarded?.();
    return { kind: request.keyward!.principal.kind, userId: request.keyward!.principal.userId };
  });
  return app;
}

/** Listens on 127.0.0.1 on a free port and returns the origin. */
export async function listen(app: FastifyInstance): Promise<string> {
  return app.listen({ port: 0, host: "127.0.0.1" });
}
