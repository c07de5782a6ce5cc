/**
 * How the store (in a Worker's isolate) and a Keyward Durable Object talk: one `fetch` to the
 * object's stub per call, `POST /<method>` with the arguments as a JSON array, answered with
 * `{ "result": … }` or `{ "error": "…" }`. A plain `fetch` rather than Workers RPC, so the object
 * class needs no import from `cloudflare:workers` and the same store code runs in Node against
 * Miniflare's bindings (the tests) as in a Worker.
 *
 * JSON carries no `undefined` and no `Infinity`: a method answers `null` for "none", and the
 * store turns it back where an interface says `undefined`.
 */

/** The part of a Durable Object stub this package uses. */
export interface ObjectStub {
  fetch(input: string, init?: { method?: string; body?: string }): Promise<ObjectResponse>;
}

/** The part of a `Response` this package reads. */
export interface ObjectResponse {
  json(): Promise<unknown>;
}

/** The part of a Durable Object namespace binding this package uses. */
export interface ObjectNamespace {
  idFromName(name: string): unknown;
  get(id: never): ObjectStub;
}

/** An error the object answered with, thrown on the store's side with the object's message. */
export class ObjectCallError extends Error {
  override readonly name = "ObjectCallError";
}

/** Calls `method` on the object behind `stub` and resolves with its result. */
export async function callObject<T>(
  stub: ObjectStub,
  method: string,
  args: readonly unknown[],
  prefix = "",
): Promise<T> {
  const query = prefix === "" ? "" : `?prefix=${encodeURIComponent(prefix)}`;
  const response = await stub.fetch(`https://keyward.object/${method}${query}`, {
    method: "POST",
    body: JSON.stringify(args),
  });
  const answer = (await response.json()) as { result?: T; error?: string };
  if (answer.error !== undefined) throw new ObjectCallError(answer.error);
  return answer.result as T;
}

/** The object's side: the method and arguments of a call, or why the request is not one. */
export async function readObjectCall(
  request: Request,
): Promise<{ method: string; args: unknown[] } | { refused: string }> {
  if (request.method !== "POST") return { refused: "only POST calls are accepted" };
  const method = new URL(request.url).pathname.slice(1);
  let args: unknown;
  try {
    args = await request.json();
  } catch {
    return { refused: "the call's body is not JSON" };
  }
  if (!Array.isArray(args)) return { refused: "the call's arguments must be a JSON array" };
  return { method, args };
}

/** The object's answer to a call. */
export function objectAnswer(result: unknown): Response {
  return Response.json({ result: result === undefined ? null : result });
}

export function objectRefusal(message: string): Response {
  return Response.json({ error: message });
}
