/**
 * Fastify's own errors in the contract's shape. Fastify answers what it refuses itself (a body its
 * parser rejects, an unknown route, a URL it cannot decode, a request Node's parser refused) with
 * `{statusCode, code, error, message}`; a client of the contract expects `{"detail": "..."}`. The
 * plugin uses `keywardErrorHandler` on its own routes; the host installs the same at its root with
 * `keywardErrors` and `keywardServerOptions`, so its routes answer alike.
 */
import { STATUS_CODES } from "node:http";
import { answerClientError } from "@keyward/core/node-http";
import { codeForStatus, errorBody } from "@keyward/core/toolkit";
import type { FastifyReply, FastifyRequest } from "fastify";
import fastifyPlugin from "fastify-plugin";

/** What an error thrown in Fastify may carry; anything may be thrown, so every field is a guess. */
interface ErrorLike {
  code?: unknown;
  message?: unknown;
  statusCode?: unknown;
  status?: unknown;
  headers?: unknown;
}

/** Fastify errors whose message repeats the request's path: answered with a fixed detail. */
const fixedDetails: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: "Malformed URL",
  FST_ERR_MAX_PARAM_LENGTH: "A path parameter is too long",
};

/**
 * A Fastify error handler that answers in the contract's shape: the error's status (or the one
 * the handler set before throwing, else 500) and `{"detail": "..."}`. A 4xx keeps the error's own
 * message, which Fastify and its plugins write for the client; a 5xx reveals nothing (`"Internal
 * server error"`, as Keyward's own 500s) and is logged with `request.log.error`.
 *
 * @example
 * // In your own handler, for the errors you do not treat yourself:
 * app.setErrorHandler((error, request, reply) => {
 *   if (error instanceof PaymentRequired) return reply.code(402).send({ detail: "Pay first" });
 *   return keywardErrorHandler(error, request, reply);
 * });
 */
export function keywardErrorHandler(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const thrown = (typeof error === "object" && error !== null ? error : {}) as ErrorLike;
  const status = statusOf(thrown, reply.statusCode);
  if (status >= 500) request.log.error({ err: error }, "request failed");
  else request.log.info({ err: error }, "request refused");
  if (status < 500 && isHeaderRecord(thrown.headers)) reply.headers(thrown.headers);
  return sendDetail(reply, status, detailOf(thrown, status));
}

/** A not-found handler answering `404 {"detail": "Not Found"}`, as Keyward's own router does. */
export function keywardNotFoundHandler(
  _request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return sendDetail(reply, 404, "Not Found");
}

/**
 * Installs `keywardErrorHandler` and a `404 {"detail": "Not Found"}` not-found handler on the
 * instance it is registered on (it is wrapped in fastify-plugin): register it at the root and
 * every route of the host answers its errors in the contract's shape. Pair it with
 * `keywardServerOptions`, which covers what happens before routing.
 *
 * @example
 * const app = Fastify({ ...keywardServerOptions });
 * await app.register(keywardErrors);
 * await app.register(keywardPlugin, { keyward });
 */
export const keywardErrors = fastifyPlugin(
  async (fastify) => {
    fastify.setErrorHandler(keywardErrorHandler);
    fastify.setNotFoundHandler(keywardNotFoundHandler);
  },
  { name: "@keyward/fastify/errors", fastify: "5.x" },
);

/**
 * Options for the Fastify factory, for the errors raised before any route or error handler exists:
 * `frameworkErrors` (a URL whose %-escapes do not decode, a path parameter over `maxParamLength`)
 * and `clientErrorHandler` (what Node's parser refuses: a malformed `Content-Length`, a header
 * block over the limit, a request past `requestTimeout`).
 *
 * @example
 * const app = Fastify({ logger: true, ...keywardServerOptions });
 */
export const keywardServerOptions = {
  frameworkErrors: (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    keywardErrorHandler(error, request, reply);
  },
  clientErrorHandler: answerClientError,
};

function statusOf(error: ErrorLike, replyStatus: number): number {
  for (const candidate of [error.statusCode, error.status]) {
    if (typeof candidate === "number" && isErrorStatus(candidate)) return candidate;
  }
  // A handler that set the status and then threw meant that status, as Fastify reads it.
  return isErrorStatus(replyStatus) ? replyStatus : 500;
}

function detailOf(error: ErrorLike, status: number): string {
  if (status === 500) return "Internal server error";
  if (status > 500) return STATUS_CODES[status] ?? "Internal server error";
  const fixed = typeof error.code === "string" ? fixedDetails[error.code] : undefined;
  if (fixed) return fixed;
  if (typeof error.message === "string" && error.message !== "") return error.message;
  return STATUS_CODES[status] ?? "Bad Request";
}

function sendDetail(reply: FastifyReply, status: number, detail: string): FastifyReply {
  // Serialised here, not by Fastify: a response schema the route declares for this status would
  // otherwise strip `detail`.
  return reply
    .code(status)
    .header("content-type", "application/json")
    .send(errorBody(codeForStatus(status), detail));
}

function isErrorStatus(status: number): boolean {
  return Number.isInteger(status) && status >= 400 && status <= 599;
}

function isHeaderRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.values(value).every((header) => typeof header === "string")
  );
}
