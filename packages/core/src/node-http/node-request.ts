/**
 * Node's `IncomingMessage` to a Fetch `Request`, as tRPC's `incomingMessageToRequest.ts` and
 * Auth.js's `frameworks-express/src/lib/http-api-adapters.ts` do it: the URL, the headers as the
 * wire had them, and the body either streamed or, when a parser already read it, serialised again.
 * `@keyward/express` and `@keyward/fastify` share it; only the way back, `Response` to the
 * framework's reply, differs between them.
 */
import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";

/** What `toFetchRequest` needs: the request, and where its body is if a parser got there first. */
export interface NodeRequestInit {
  /** `http://host`, as the client addressed the server. */
  origin: string;
  /** The path and query the endpoints are matched against. */
  path: string;
  /**
   * A body already read by someone else: a string or bytes as they were, anything else (a parsed
   * JSON value) serialised as JSON again. `undefined` reads the body from `body` below.
   */
  parsedBody?: { value: unknown };
  /** The unread body stream; default the request itself. */
  body?: Readable;
}

const bodiless = new Set(["GET", "HEAD"]);

/**
 * A Fetch `Request` over a Node request. An unread body is streamed, not buffered: Keyward reads it
 * with its own size limit and stops at the limit, so an oversized upload costs no memory here.
 */
export function toFetchRequest(req: IncomingMessage, init: NodeRequestInit): Request {
  const method = req.method ?? "GET";
  const headers = fetchHeaders(req.rawHeaders);
  const request: RequestInit & { duplex?: "half" } = { method, headers };
  if (!bodiless.has(method)) {
    if (init.parsedBody) {
      const bytes = serialiseBody(init.parsedBody.value);
      // The parser may have inflated or re-encoded the body: describe the bytes we actually pass.
      headers.delete("content-encoding");
      headers.delete("transfer-encoding");
      headers.set("content-length", String(bytes.byteLength));
      request.body = bytes;
    } else {
      request.body = bodyStream(init.body ?? req);
      // Node's fetch needs this for a streamed body (https://fetch.spec.whatwg.org/#dom-requestinit-duplex).
      request.duplex = "half";
    }
  }
  return new Request(requestUrl(init.origin, init.path), request);
}

/**
 * The request without its body, for what reads only the URL and headers: a guard asking the host's
 * `session` hook about a request to one of the host's own routes, whose body is the route's.
 */
export function toHeadersOnlyRequest(
  req: Pick<IncomingMessage, "method" | "rawHeaders">,
  origin: string,
  path: string,
): Request {
  const method = req.method ?? "GET";
  // A Fetch Request cannot carry CONNECT or TRACE; the session hook only needs the headers.
  const safeMethod = method === "CONNECT" || method === "TRACE" ? "GET" : method;
  return new Request(requestUrl(origin, path), {
    method: safeMethod,
    headers: fetchHeaders(req.rawHeaders),
  });
}

/**
 * Headers as the wire had them. A repeated field is joined with ", " as a Fetch runtime does (RFC
 * 9110 §5.3), so two `Authorization` lines reach Keyward as one value it refuses, the same answer
 * Deno and Bun give — Node's `req.headers` would silently keep the first. `Cookie` joins with
 * "; " (RFC 9113 §8.2.3); HTTP/2 pseudo-headers are dropped.
 */
export function fetchHeaders(rawHeaders: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    const value = rawHeaders[index + 1]!;
    if (name.startsWith(":")) continue;
    const cookies = name.toLowerCase() === "cookie" ? headers.get(name) : null;
    if (cookies === null) headers.append(name, value);
    else headers.set(name, `${cookies}; ${value}`);
  }
  return headers;
}

/**
 * Every value of one header (`name` in lower case), joined as `fetchHeaders` joins them;
 * `undefined` when absent. For the guards, which need one header and not a whole `Headers`.
 */
export function headerValue(rawHeaders: readonly string[], name: string): string | undefined {
  let joined: string | undefined;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.length !== name.length) continue;
    if (rawHeaders[index]!.toLowerCase() !== name) continue;
    const value = rawHeaders[index + 1]!;
    joined = joined === undefined ? value : `${joined}, ${value}`;
  }
  return joined;
}

function serialiseBody(value: unknown): Uint8Array<ArrayBuffer> {
  // Copied: a Buffer from `express.raw()` may be a view into a shared pool.
  if (value instanceof Uint8Array) return new Uint8Array(value);
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return new TextEncoder().encode(text);
}

function requestUrl(origin: string, path: string): URL {
  // Concatenated, never resolved: `new URL("//evil.example/x", origin)` would change the host.
  const target = path.startsWith("/") ? path : `/${path}`;
  try {
    return new URL(`${origin}${target}`);
  } catch {
    // A Host header that is not a host; Keyward only routes on the path.
    return new URL(`http://localhost${target}`);
  }
}

/**
 * A Node stream as a pull-based `ReadableStream`: nothing is read until the consumer asks, so a
 * request refused before its body is needed leaves the body to Node, which discards it. When the
 * consumer stops early (a body over the limit), the rest is drained and discarded too, as Node does
 * for any unread body, so the connection stays usable for the response.
 */
export function bodyStream(source: Readable): ReadableStream<Uint8Array> {
  let listening = false;
  let settled = false;
  const listeners: {
    data?: (chunk: Buffer | string) => void;
    end?: () => void;
    error?: (error: Error) => void;
  } = {};
  const stopListening = () => {
    settled = true;
    if (listeners.data) source.off("data", listeners.data);
    if (listeners.end) source.off("end", listeners.end);
    if (listeners.error) source.off("error", listeners.error);
  };
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!listening) {
          listening = true;
          if (source.readableEnded) {
            settled = true;
            controller.close();
            return;
          }
          listeners.data = (chunk) => {
            if (settled) return;
            const bytes =
              typeof chunk === "string"
                ? new TextEncoder().encode(chunk)
                : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
            controller.enqueue(bytes);
            if ((controller.desiredSize ?? 0) <= 0) source.pause();
          };
          listeners.end = () => {
            if (settled) return;
            stopListening();
            controller.close();
          };
          listeners.error = (error) => {
            if (settled) return;
            stopListening();
            controller.error(error);
          };
          source.on("data", listeners.data);
          source.once("end", listeners.end);
          source.once("error", listeners.error);
        }
        source.resume();
      },
      cancel() {
        stopListening();
        // A stream other than the request itself (a decompressor, say) must not crash the process
        // with an unheard error while it drains.
        source.on("error", ignore);
        source.resume();
      },
    },
    { highWaterMark: 0 },
  );
}

function ignore(): void {}
