/**
 * The body of every error response, whoever answers it (`handle`, a guard, an adapter's framework
 * error handler, a Node `clientError` listener): the contract's `detail`, which people read, and a
 * stable `code` from the error table, which programs branch on. One function, so no answer can
 * leave without its code.
 */
import type { KeywardErrorCode } from "./codes.js";
import type { ErrorDetail } from "./error-detail.js";

export function errorBody(code: KeywardErrorCode, detail: ErrorDetail): string {
  return JSON.stringify({ detail, code });
}

/** The code for each status a framework answers on its own, before Keyward sees the request. */
export const codeByStatus: Partial<Record<number, KeywardErrorCode>> = {
  400: "malformed_request",
  404: "route_not_found",
  405: "method_not_allowed",
  408: "request_timeout",
  413: "body_too_large",
  415: "unsupported_media_type",
  431: "headers_too_large",
};

/**
 * The code for an error known only by its status: a parser's 400, a timeout's 408, an error the
 * host's own code threw with a status. Any 5xx is `internal`; a status the table has no code for
 * is `http_error` (its status says the rest).
 */
export function codeForStatus(status: number): KeywardErrorCode {
  if (status >= 500) return "internal";
  return codeByStatus[status] ?? "http_error";
}
