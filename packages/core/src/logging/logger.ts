/**
 * Where Keyward reports what it handled but a person should know about: the cause of every 500,
 * failed background writes (usage, account tiers), and configuration it accepted but that is
 * probably a mistake. One logger per instance receives everything (as Auth.js's `logger` does), and
 * by default it writes one line per event to the console, so a store failure is never silent.
 *
 * Nothing logged carries a secret: tokens never reach a logger, and responses never carry what is
 * logged.
 */

export interface KeywardLogger {
  /**
   * A failure Keyward answered for (a 500, a write it could not make), with its cause, and what
   * is known of the request it happened in (`fields`, for a structured logger).
   */
  error(message: string, cause?: unknown, fields?: LogFields): void;
  /** Something that works, but probably not as intended. */
  warn(message: string, detail?: unknown, fields?: LogFields): void;
}

/** What Keyward knows of the request a log line is about. */
export interface LogFields {
  /** The host's id of the request (Fastify's `request.id`, an `X-Request-Id` header). */
  requestId?: string;
}

/** The default: one line per event on `console.error` / `console.warn`, prefixed `keyward:`. */
export const consoleLogger: KeywardLogger = {
  error: (message, cause) => console.error(logLine(message, cause)),
  warn: (message, detail) => console.warn(logLine(message, detail)),
};

/** A logger that drops everything (`logger: false`). */
export const silentLogger: KeywardLogger = { error() {}, warn() {} };

const maxCauses = 4;

/**
 * `keyward: <message>: <cause>`, on one line: an error as `Name [code]: message`, followed by its
 * `cause` chain, so a log collector keeps the whole story in one record. Stacks are left out; a
 * logger of your own receives the error itself.
 */
export function logLine(message: string, cause?: unknown): string {
  const parts = [`keyward: ${message}`];
  let current = cause;
  for (let depth = 0; current !== undefined && depth < maxCauses; depth++) {
    parts.push(describe(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ").replace(/\s*\n\s*/g, " ");
}

function describe(value: unknown): string {
  if (!(value instanceof Error)) return typeof value === "string" ? value : safeJson(value);
  const code = (value as { code?: unknown }).code;
  const tag = typeof code === "string" || typeof code === "number" ? ` [${code}]` : "";
  const text = value.message || "(no message)";
  return `${value.name}${tag}: ${text}`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
