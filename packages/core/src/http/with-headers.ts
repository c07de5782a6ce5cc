/**
 * Adds `headers` (the rate-limit headers a guard's result carries) to the response a Fetch-style
 * handler returned; the Fetch and Hono adapters both use it. Some responses have immutable headers (`Response.redirect()`, the
 * result of `fetch()`); those are copied first. One that cannot be copied either (a `101` from a
 * WebSocket upgrade, whose status `new Response` refuses) is returned as it is.
 */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  const names = Object.keys(headers);
  if (names.length === 0) return response;
  try {
    for (const name of names) response.headers.set(name, headers[name]!);
    return response;
  } catch {
    let copy: Response;
    try {
      copy = new Response(response.body, response);
    } catch {
      return response;
    }
    for (const name of names) copy.headers.set(name, headers[name]!);
    return copy;
  }
}
