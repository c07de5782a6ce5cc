/**
 * Sends the suite's requests to a real server, for adapters that are tested over HTTP (Express,
 * Fastify, a Fetch server). The body is buffered first because Node's `fetch` refuses a streamed
 * request body without `duplex: "half"`, and the suite's bodies are small anyway.
 */

/**
 * @param origin Where the server listens, e.g. `http://127.0.0.1:3000`, or a function returning it
 * (for a port known only once the server has started).
 *
 * @example
 * let origin = "";
 * beforeAll(async () => { origin = await startServer(); });
 * describeHttpConformance("express", { fetch: forwardTo(() => origin), jwtSecret });
 */
export function forwardTo(
  origin: string | (() => string),
): (request: Request) => Promise<Response> {
  return async (request) => {
    const target = new URL(request.url);
    const server = new URL(typeof origin === "function" ? origin() : origin);
    target.protocol = server.protocol;
    target.host = server.host;
    const body = request.body === null ? undefined : await request.arrayBuffer();
    return fetch(target, {
      method: request.method,
      headers: request.headers,
      redirect: "manual",
      ...(body === undefined ? {} : { body }),
    });
  };
}
