/**
 * Express's own errors in the contract's shape. What no route answers, and what a body parser or a
 * handler passes to `next(error)`, ends in Express's final handler, which answers with an HTML page
 * (`Cannot GET /x`, or `SyntaxError: Unexpected token ... in JSON` with the client's own bytes). A
 * client of the contract expects `{"detail": "..."}`: these two middlewares answer so instead.
 */
import type { ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import { codeForStatus, errorBody } from "@keyward/core/toolkit";
import type { ErrorRequestHandler, Request, RequestHandler } from "express";

export interface KeywardErrorHandlerOptions {
  /** Receives every 5xx's error, whose response reveals nothing of it; default `console.error`. */
  onError?: (error: unknown, req: Request) => void;
}

/** What may arrive at an error handler; anything can be passed to `next`, so every field is a guess. */
interface ErrorLike {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
  headers?: unknown;
}

/**
 * Express error middleware answering in the contract's shape: the error's `status` (or
 * `statusCode`, else 500) and `{"detail": "..."}`. The detail follows the http-errors convention
 * Express's final handler uses: the message of an error marked `expose` (body-parser's and
 * http-errors' 4xx), the status's reason phrase otherwise, and for JSON that does not parse the
 * wording of Keyward's own endpoints, never the parser's message, which quotes the body. A 5xx
 * reveals nothing and goes to `onError`. Once a response has started, it leaves the error to
 * Express, which closes the connection.
 *
 * @example
 * app.use(keywardNotFound());    // after your routes
 * app.use(keywardErrorHandler()); // last
 */
export function keywardErrorHandler(options: KeywardErrorHandlerOptions = {}): ErrorRequestHandler {
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const thrown = (typeof error === "object" && error !== null ? error : {}) as ErrorLike;
    const status = statusOf(thrown);
    if (status >= 500) {
      try {
        onError(error, req);
      } catch {
        // A failing hook must not turn the answer into a crash.
      }
    } else if (isHeaderRecord(thrown.headers)) {
      for (const [name, value] of Object.entries(thrown.headers)) res.setHeader(name, value);
    }
    sendDetail(res, status, detailOf(error, thrown, status));
  };
}

/**
 * Middleware answering `404 {"detail": "Not Found"}`, as Keyward's own router does, for every
 * request that reached it: mount it after your routes.
 *
 * @example
 * app.use(keywardNotFound());
 */
export function keywardNotFound(): RequestHandler {
  return (_req, res) => sendDetail(res, 404, "Not Found");
}

function statusOf(error: ErrorLike): number {
  for (const candidate of [error.status, error.statusCode]) {
    if (typeof candidate === "number" && Number.isInteger(candidate)) {
      if (candidate >= 400 && candidate <= 599) return candidate;
    }
  }
  return 500;
}

function detailOf(error: unknown, thrown: ErrorLike, status: number): string {
  if (status === 500) return "Internal server error";
  if (status > 500) return STATUS_CODES[status] ?? "Internal server error";
  // body-parser hands on JSON.parse's SyntaxError, whose message quotes the body it failed on.
  if (error instanceof SyntaxError) return "Malformed JSON in request body";
  if (thrown.expose === true && typeof thrown.message === "string" && thrown.message !== "") {
    return thrown.message;
  }
  return STATUS_CODES[status] ?? "Bad Request";
}

function sendDetail(res: ServerResponse, status: number, detail: string): void {
  const body = errorBody(codeForStatus(status), detail);
  res.statusCode = status;
  // Set directly, as Keyward's own responses are: Express's `res.type` would add a charset.
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(body));
  res.end(body);
}

function isHeaderRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.values(value).every((header) => typeof header === "string")
  );
}
