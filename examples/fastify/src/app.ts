/**
 * The demo app on Fastify: `keywardPlugin` registers the six key-management endpoints and the
 * `requireApiKey` decorator, whose preHandler guards the two profile routes.
 */
import type { Keyward } from "@keyward/core";
import { profilePath, profileRoutes, readProfile, updateProfile } from "@keyward/example-demo";
import { keywardPlugin } from "@keyward/fastify";
import Fastify, { type FastifyInstance } from "fastify";

export async function createApp(keyward: Keyward): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(keywardPlugin, { keyward });

  app.get<{ Params: { slug: string } }>(
    profilePath,
    { preHandler: app.requireApiKey({ scopes: profileRoutes.read.scopes }) },
    async (request) => readProfile(request.params.slug, request.keyward!.principal),
  );
  app.put<{ Params: { slug: string } }>(
    profilePath,
    { preHandler: app.requireApiKey({ scopes: profileRoutes.update.scopes }) },
    async (request) => updateProfile(request.params.slug, request.keyward!.principal),
  );
  app.route({
    method: ["DELETE", "PATCH", "POST", "OPTIONS"],
    url: profilePath,
    handler: async (_request, reply) =>
      reply.code(405).header("Allow", "GET, HEAD, PUT").send({ detail: "Method Not Allowed" }),
  });

  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ detail: "Not Found" }));
  return app;
}
