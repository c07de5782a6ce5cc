/**
 * The id a request is known by in the host's logs, for Keyward's log lines about it: what the
 * adapter tagged the Fetch `Request` with (Fastify's `request.id`), else its `X-Request-Id` header.
 */
const tagged = new WeakMap<Request, string>();

/** For adapters: the id the framework gave the request that `request` was made from. */
export function tagRequestId(request: Request, id: string | number): void {
  tagged.set(request, String(id));
}

/** The request's id, when the adapter tagged one or the client sent `X-Request-Id` (≤ 128 chars). */
export function requestIdOf(request: Request | undefined): string | undefined {
  if (request === undefined) return undefined;
  const id = tagged.get(request);
  if (id !== undefined) return id;
  const header = request.headers.get("x-request-id");
  return header !== null && header.length > 0 && header.length <= 128 ? header : undefined;
}
