/**
 * A pino-style logger as Keyward's `logger`: Fastify's own (`app.log`), pino, or anything with
 * `error(fields, message)` and `warn(fields, message)` and pino's `levels` and `child`. Keyward then
 * logs fields rather than sentences: the message, the cause as `err` (pino's error serializer
 * applies), the cause's error `code`, and the request id where the adapter knows one (Fastify's
 * `request.id`, or an `X-Request-Id` header).
 *
 * @example
 * const app = Fastify({ logger: true });
 * const keyward = createKeyward({ store, scopes, tiers, jwt, logger: app.log });
 * // {"level":50,"msg":"GET /api/v1/api-keys failed (500)","err":{...},"code":"ECONNREFUSED","requestId":"req-1",...}
 */
import type { KeywardLogger, LogFields } from "./logger.js";

/** The part of a pino logger Keyward uses. */
export interface StructuredLogger {
  error(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  child(bindings: object): unknown;
  levels: { values: Record<string, number> };
}

/** Whether `logger` is pino-shaped (a `levels.values` table and `child`), not a `KeywardLogger`. */
export function isStructuredLogger(logger: unknown): logger is StructuredLogger {
  const candidate = logger as Partial<StructuredLogger> | null;
  return (
    typeof candidate?.child === "function" &&
    typeof candidate.error === "function" &&
    typeof candidate.warn === "function" &&
    typeof candidate.levels?.values === "object" &&
    candidate.levels.values !== null
  );
}

/** Keyward's calls, as fields for a structured logger. */
export function fromStructuredLogger(logger: StructuredLogger): KeywardLogger {
  return {
    error(message, cause, fields) {
      logger.error(fieldsOf(cause, fields, "err"), message);
    },
    warn(message, detail, fields) {
      logger.warn(fieldsOf(detail, fields, "detail"), message);
    },
  };
}

function fieldsOf(cause: unknown, fields: LogFields | undefined, name: string): object {
  const out: Record<string, unknown> = { keyward: true };
  if (cause !== undefined) out[name] = cause;
  const code = codeOf(cause);
  if (code !== undefined) out.code = code;
  if (fields?.requestId !== undefined) out.requestId = fields.requestId;
  return out;
}

/** The cause's own code (`ECONNREFUSED`, `timeout`, a Keyward error code), first in its chain. */
function codeOf(cause: unknown): string | undefined {
  let current = cause;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code =
      (current as { code?: unknown; kind?: unknown }).code ?? (current as { kind?: unknown }).kind;
    if (typeof code === "string" || typeof code === "number") return String(code);
    current = current.cause;
  }
  return undefined;
}
