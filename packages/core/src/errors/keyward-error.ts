import { bearerChallenge } from "./bearer-challenge.js";
import { errorStatus, type KeywardErrorCode } from "./codes.js";
import { errorBody } from "./error-body.js";
import type { ErrorDetail } from "./error-detail.js";

export type { ErrorDetail } from "./error-detail.js";

/**
 * The one error type Keyward throws (programmatic API) or returns (`verify`).
 * `detail` is safe to show to the caller; `cause` is for logs and the `onError` hook only and never
 * reaches a response body.
 *
 * @example
 * throw new KeywardError("key_not_found", "API key not found");
 */
export class KeywardError extends Error {
  override readonly name = "KeywardError";
  readonly code: KeywardErrorCode;
  readonly status: number;
  readonly detail: ErrorDetail;
  /**
   * Extra response headers, such as `Allow` on a 405, `Retry-After` on a 429, or the
   * `WWW-Authenticate` challenge every 401 carries (RFC 6750).
   */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: KeywardErrorCode,
    detail: ErrorDetail,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(typeof detail === "string" ? detail : `${code}: ${detail.length} validation issue(s)`, {
      cause: options.cause,
    });
    this.code = code;
    this.status = errorStatus[code];
    this.detail = detail;
    const challenge = bearerChallenge(code, detail);
    this.headers = challenge
      ? { "WWW-Authenticate": challenge, ...options.headers }
      : (options.headers ?? {});
  }

  /**
   * The FastAPI-style body `{"detail": ..., "code": ...}` as a JSON response with this error's
   * status. (`extraHeaders` is typed through `Headers`, not the DOM-only `HeadersInit`, so the
   * published `.d.ts` compiles in a Node project without the DOM library.)
   */
  toResponse(extraHeaders?: ConstructorParameters<typeof Headers>[0]): Response {
    const headers = new Headers(extraHeaders);
    headers.set("content-type", "application/json");
    for (const [name, value] of Object.entries(this.headers)) headers.set(name, value);
    return new Response(errorBody(this.code, this.detail), { status: this.status, headers });
  }
}

export function isKeywardError(value: unknown): value is KeywardError {
  return value instanceof KeywardError;
}

/** Wraps anything thrown by storage or user code as a 500 whose detail reveals nothing. */
export function internalError(cause: unknown): KeywardError {
  if (cause instanceof KeywardError) return cause;
  return new KeywardError("internal", "Internal server error", { cause });
}
