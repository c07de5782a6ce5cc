import type { Readable } from "node:stream";
import type { Keyward } from "@keyward/core";
import { toFetchRequest, uncarriedMethodResponse } from "@keyward/core/node-http";
import { tagRequestId } from "@keyward/core/toolkit";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import fastifyPlugin from "fastify-plugin";
import { keywardErrorHandler } from "./keyward-errors.js";
import { createRequireApiKey } from "./require-api-key.js";
import { sendReply } from "./send-reply.js";

export interface KeywardPluginOptions {
  keyward: Keyward;
}

const plugin: FastifyPluginAsync<KeywardPluginOptions> = async (fastify, options) => {
  const keyward = options?.keyward;
  if (!keyward || typeof keyward.handle !== "function") {
    throw new TypeError(
      "@keyward/fastify: register the plugin with { keyward: createKeyward(...) }",
    );
  }
  fastify.decorate("keyward", keyward);
  fastify.decorate("requireApiKey", (guardOptions = {}) =>
    createRequireApiKey(keyward, guardOptions),
  );
  fastify.decorateRequest("keyward", null);

  await fastify.register(async (endpoints) => {
    endpoints.removeAllContentTypeParsers();
    endpoints.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    // What Fastify still refuses here (a Content-Type header that does not parse: 415), and
    // whatever a host's hook throws, answers as Keyward does, whatever the host's own handler does.
    endpoints.setErrorHandler(keywardErrorHandler);
    // Routes here carry the enclosing prefix; Keyward matches its base path on what follows it.
    const prefix = endpoints.prefix;
    const handle = async (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.startsWith(prefix) ? request.url.slice(prefix.length) : request.url;
      const refused = uncarriedMethodResponse(request.method, path, keyward.basePath);
      if (refused) return sendReply(reply, refused);
      const fetchRequest = toFetchRequest(request.raw, {
        origin: `${request.protocol}://${request.host}`,
        path,
        ...bodyOf(request.body),
      });
      // Keyward's log lines about this request carry Fastify's id for it.
      tagRequestId(fetchRequest, request.id);
      const response = await keyward.handle(fetchRequest);
      return sendReply(reply, response);
    };
    endpoints.all(keyward.basePath, handle);
    endpoints.all(`${keyward.basePath}/*`, handle);
  });
};

/** The parser above leaves the payload stream; anything else was put there by someone else. */
function bodyOf(body: unknown): { body?: Readable; parsedBody?: { value: unknown } } {
  if (body === undefined) return {};
  if (typeof (body as Readable | null)?.on === "function") return { body: body as Readable };
  return { parsedBody: { value: body } };
}

/**
 * Keyward on Fastify 5. Registers the six key-management endpoints under `keyward.basePath`, and
 * decorates the instance with `keyward` and `requireApiKey({ scopes })` (a `preHandler`) and each
 * request with `keyward` (`{ principal, rateLimit }` once the guard admits it, else `null`).
 *
 * The decorators reach the instance that registers the plugin (it is wrapped in fastify-plugin);
 * the endpoints live in an encapsulated child context with a content-type parser of its own (the
 * approach of tRPC's `fastifyTRPCPlugin`), which hands Keyward the unread body stream, and an error
 * handler of its own, so every answer there has the contract's `{"detail": ...}` body. The host's
 * JSON parser, `bodyLimit` and error handler stay as they are for its own routes (see
 * `keywardErrors` to answer those in the contract's shape too); on Keyward's, Keyward applies its
 * own body limit (413 with the contract body).
 *
 * @example
 * const app = Fastify();
 * await app.register(keywardPlugin, { keyward });
 * app.get("/api/v1/profiles/:slug", { preHandler: app.requireApiKey({ scopes: ["profile:read"] }) },
 *   async (request) => ({ viewer: request.keyward!.principal.userId }));
 */
export const keywardPlugin = fastifyPlugin(plugin, { name: "@keyward/fastify", fastify: "5.x" });
