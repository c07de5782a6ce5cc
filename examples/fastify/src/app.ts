/**
 * The demo app on Fastify: `keywardPlugin` registers the six key-management endpoints and the
 * `requireApiKey` decorator, whose preHandler guards the two profile routes. `keywardErrors` and
 * `keywardServerOptions` make everything Fastify refuses itself (a body its parser rejects, an
 * unknown route, a URL that does not decode, what Node's parser refuses) answer as
 * `{"detail": ...}` instead of Fastify's `{statusCode, code, error, message}`. `/mcp` is an MCP
 * server guarded as an OAuth protected resource (`demoMcp`), its metadata at the well-known paths.
 */
import type { Keyward } from "@keyward/core";
import type { BudgetsApi } from "@keyward/core/budgets";
import { toFetchRequest } from "@keyward/core/node-http";
import {
  answerMcp,
  type DemoMcp,
  demoMcp,
  MCP_METADATA_PATHS,
  MCP_PATH,
  MCP_SCOPES,
  type NodeServerTimeouts,
  PROFILE_ROUTE,
  PROFILE_ROUTES,
  profileResource,
  readProfile,
  updateProfile,
} from "@keyward/example-demo";
import {
  keywardErrors,
  keywardPlugin,
  keywardServerOptions,
  requireApiKey,
} from "@keyward/fastify";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { addCompletions } from "./completions.js";

/** What a profile route is about: a key limited to some profiles gets 403 for the others. */
const resource = (request: FastifyRequest) =>
  profileResource((request.params as { slug: string }).slug);

/** `mcp.listening(port)` must be called once the server listens (the resource names the port). */
export async function createApp(
  keyward: Keyward & { budgets: BudgetsApi },
  timeouts: NodeServerTimeouts,
  mcp: DemoMcp = demoMcp(keyward),
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
  // POST /api/v1/completions (demo contract v0.4): reserve, stream, settle.
  addCompletions(app, keyward);
  for (const path of MCP_METADATA_PATHS) {
    app.get(path, async (_request, reply) => sendFetchResponse(reply, mcp.metadataResponse()));
  }
  app.route({
    method: ["GET", "POST", "DELETE"],
    url: MCP_PATH,
    preHandler: requireApiKey(mcp.guard, { scopes: [...MCP_SCOPES], accept: "api-key" }),
    handler: async (request, reply) => {
      // Fastify has parsed the JSON body already: it is handed on as it was read.
      const fetchRequest = toFetchRequest(request.raw, {
        origin: `http://${request.headers.host}`,
        path: request.url,
        ...(request.body === undefined ? {} : { parsedBody: { value: request.body } }),
      });
      return sendFetchResponse(reply, await answerMcp(fetchRequest, request.keyward!.principal));
    },
  });
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

/** A Fetch `Response` (the MCP transport's, the metadata) as Fastify's reply. */
async function sendFetchResponse(reply: FastifyReply, answer: Response): Promise<FastifyReply> {
  reply.code(answer.status);
  answer.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  return reply.send(Buffer.from(await answer.arrayBuffer()));
}
