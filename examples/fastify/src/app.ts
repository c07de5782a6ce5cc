/**
 * The demo app on Fastify: `keywardPlugin` registers the six key-management endpoints and the
 * `requireApiKey` decorator, whose preHandler guards the two profile routes. `keywardErrors` and
 * `keywardServerOptions` make everything Fastify refuses itself (a body its parser rejects, an
 * unknown route, a URL that does not decode, what Node's parser refuses) answer as
 * `{"detail": ...}` instead of Fastify's `{statusCode, code, error, message}`.
 */
import type { Keyward } from "@keyward/core";
import {
  type NodeServerTimeouts,
  PROFILE_ROUTE,
  PROFILE_ROUTES,
  profileResource,
  readProfile,
  updateProfile,
} from "@keyward/example-demo";
import { keywardErrors, keywardPlugin, keywardServerOptions } from "@keyward/fastify";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";

/** What a profile route is about: a key limited to some profiles gets 403 for the others. */
const resource = (request: FastifyRequest) =>
  profileResource((request.params as { slug: string }).slug);

export async function createApp(
  keyward: Keyward,
  timeouts: NodeServerTimeouts,
): Promise<FastifyInstance> {
  const app = Fastify({
    ...keywardServerOptions,
    // Fastify's own defaults switch Node's request timeout off (0) and set no idle limit. The idle
    // limit is the longer, so a slow request gets its 408 before the connection is dropped; it
    // still closes a connection gone silent mid-request.
    requestTimeout: timeouts.requestTimeout,
    connectionTimeout: 2 * timeouts.requestTimeout,
    http: timeouts,
    // keywardErrorHandler logs 5xx through Fastify's logger; the rest stays quiet for the banner.
    logger: { level: "warn" },
  });
  await app.register(keywardErrors);
  await app.register(keywardPlugin, { keyward });

  app.get<{ Params: { slug: string } }>(
    PROFILE_ROUTE,
    { preHandler: app.requireApiKey({ scopes: PROFILE_ROUTES.read.scopes, resource }) },
    async (request) => readProfile(request.params.slug, request.keyward!.principal),
  );
  app.put<{ Params: { slug: string } }>(
    PROFILE_ROUTE,
    { preHandler: app.requireApiKey({ scopes: PROFILE_ROUTES.update.scopes, resource }) },
    async (request) => updateProfile(request.params.slug, request.keyward!.principal),
  );
  app.route({
    method: ["DELETE", "PATCH", "POST", "OPTIONS"],
    url: PROFILE_ROUTE,
    handler: async (_request, reply) =>
      reply
        .code(405)
        .header("Allow", "GET, HEAD, PUT")
        .send({ detail: "Method Not Allowed", code: "method_not_allowed" }),
  });
  return app;
}
