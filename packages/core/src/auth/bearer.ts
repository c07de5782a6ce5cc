/**
 * Reading `Authorization: Bearer <token>` (RFC 6750 §2.1). This runs on every request, so it is one
 * anchored regular expression over the trimmed header value and nothing else.
 */

// The scheme is case-insensitive (RFC 9110 §11.1); one or more spaces separate it from a single
// token68 (RFC 9110 §11.2: letters, digits, `-._~+/`, then optional `=` padding). Anything else —
// a second token, a comma from repeated headers joined by a proxy, quotes, control characters —
// fails the match.
const bearerPattern = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The token from an `Authorization` header value, or `null` when the header is missing or is not
 * exactly one well-formed bearer credential. `null` never says why: callers answer every such case
 * with the same 401.
 *
 * @example
 * readBearer("Bearer sk_live_abc"); // "sk_live_abc"
 * readBearer("bearer   eyJhbGciOi..."); // "eyJhbGciOi..."
 * readBearer("Bearer a, Bearer b"); // null: two credentials joined into one header
 * readBearer("Basic dXNlcjpwYXNz"); // null
 */
export function readBearer(authorization: string | null | undefined): string | null {
  if (typeof authorization !== "string") return null;
  const match = bearerPattern.exec(authorization.trim());
  return match ? match[1]! : null;
}
