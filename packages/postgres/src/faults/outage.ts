/**
 * Which errors mean "PostgreSQL is down or unreachable" (they open the circuit) and which are the
 * server's answer to one statement (a unique violation, bad input: the server is fine).
 */

/**
 * SQLSTATE classes in which the server reports that it cannot serve at all: connection exception
 * (08), insufficient resources (53, e.g. too many connections), operator intervention (57: shutdown,
 * a terminated backend, a cancelled statement) and system error (58).
 */
const outageClasses = new Set(["08", "53", "57", "58"]);

/**
 * Whether `error` means the database is unreachable or unwell. Only an error that came from the
 * server (a SQLSTATE `code` with a `severity`, as pg, postgres.js and PGlite report them) can be an
 * answer; anything else — a socket error, a dropped connection, a driver's own timeout — is an
 * outage. An input that makes every query fail must not be able to open the circuit for everyone.
 */
export function isOutage(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  const fromServer =
    typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && typeof severity === "string";
  return !fromServer || outageClasses.has(code.slice(0, 2));
}
