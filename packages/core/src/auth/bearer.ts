/**
 * Reading `Authorization: Bearer <token>` (RFC 6750 §2.1). This runs on every request, so it is one
 * anchored regular expression over the trimmed header value and a slice. (A hand-written scan by
 * char code was tried: a third slower than the expression, which V8 compiles to native code.)
 */

// The scheme is case-insensitive (RFC 9110 §11.1); one or more spaces separate it from a single
// token68 (RFC 9110 §11.2: letters, digits, `-._~+/`, then optional `=` padding). Anything else —
// a second token, a comma from repeated headers joined by a proxy, quotes, control characters —
// fails the match.
const bearerPattern = /^bearer +[A-Za-z0-9\-._~+/]+=*$/i;
/** The first index the token can start at: after `bearer` and the one space it must have. */
const AFTER_SCHEME = "bearer ".length;
const SPACE = 0x20;

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
  const value = authorization.trim();
  // `test` and a slice, not `exec` and its capture: no match array per request.
  if (!bearerPattern.test(value)) return null;
  let start = AFTER_SCHEME;
  while (value.charCodeAt(start) === SPACE) start++;
  return value.slice(start);
}
