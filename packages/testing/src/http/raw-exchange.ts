/**
 * Bytes over a bare TCP socket, for what even `node:http` will not send: a malformed
 * `Content-Length`, a header block that never ends, a body trickled a byte at a time. Adapters and
 * servers use it to check that errors raised before any framework code runs still get the
 * contract's `{"detail": ...}`, and that slow clients are cut off.
 */
import { connect } from "node:net";

export interface RawExchangeOptions {
  /**
   * After the first bytes, keep sending `byte` every `everyMs` until the server closes the
   * connection (or `timeoutMs` passes): a body that trickles in and never finishes.
   */
  trickle?: { byte: string; everyMs: number };
  /** How long to wait for the server to close the connection; default 5 s. */
  timeoutMs?: number;
}

export interface RawExchange {
  /** Everything the server sent, as text. */
  raw: string;
  /** The status of the first response; 0 when the server sent none. */
  status: number;
  /** Its header fields, names in lower case (a repeated one keeps its last value). */
  headers: Record<string, string>;
  /** Its body, a chunked one put back together (the exchange reads to the close). */
  body: string;
  /** The body as JSON, or `undefined` when it is not JSON. */
  json: unknown;
  /** Whether the server closed the connection within `timeoutMs`. */
  closed: boolean;
  /** Milliseconds from the first write to the server's close; `undefined` when it did not close. */
  closedAfterMs: number | undefined;
}

/**
 * Opens a connection to `origin`, writes `bytes` as they are, and reads until the server closes
 * the connection or `timeoutMs` passes. Send `Connection: close` in `bytes` when the request is
 * complete, or the server will (rightly) keep the connection open for the next one.
 *
 * @example
 * const reply = await rawExchange(origin, "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n");
 * expect(reply.status).toBe(400);
 * expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
 */
export function rawExchange(
  origin: string,
  bytes: string,
  options: RawExchangeOptions = {},
): Promise<RawExchange> {
  const { hostname, port } = new URL(origin);
  const timeoutMs = options.timeoutMs ?? 5_000;
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ""));
    const chunks: Buffer[] = [];
    let startedAt = 0;
    let trickling: ReturnType<typeof setInterval> | undefined;
    const finish = (closed: boolean) => {
      clearInterval(trickling);
      clearTimeout(deadline);
      socket.destroy();
      resolve(parse(Buffer.concat(chunks), closed, startedAt));
    };
    const deadline = setTimeout(() => finish(false), timeoutMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A reset after the server's answer is still the server closing the connection.
    socket.on("error", () => {});
    socket.on("close", () => finish(true));
    socket.once("connect", () => {
      startedAt = performance.now();
      socket.write(bytes);
      const trickle = options.trickle;
      if (trickle) {
        trickling = setInterval(() => {
          if (socket.writable) socket.write(trickle.byte);
        }, trickle.everyMs);
      }
    });
  });
}

/**
 * One HTTP/1.1 request as bytes for `rawExchange`: `Host` and `Connection: close` are added, and a
 * `Content-Length` for `body` unless `headers` declares one itself (a malformed one, say). Header
 * names and values go out exactly as given.
 *
 * @example
 * requestBytes("PUT", "/profiles/a", { "content-type": "application/json" }, "{bad");
 */
export function requestBytes(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body = "",
): string {
  const lines = [`${method} ${path} HTTP/1.1`, "Host: localhost", "Connection: close"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const declared = Object.keys(headers).some((name) => name.toLowerCase() === "content-length");
  if (body !== "" && !declared) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

function parse(bytes: Buffer, closed: boolean, startedAt: number): RawExchange {
  const raw = bytes.toString("utf8");
  const headEnd = bytes.indexOf("\r\n\r\n");
  const head = headEnd === -1 ? raw : bytes.subarray(0, headEnd).toString("utf8");
  const rest = headEnd === -1 ? Buffer.alloc(0) : bytes.subarray(headEnd + 4);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const chunked = /chunked/i.test(headers["transfer-encoding"] ?? "");
  const body = (chunked ? dechunk(rest) : rest).toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return {
    raw,
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
    headers,
    body,
    json,
    closed,
    closedAfterMs: closed ? Math.round(performance.now() - startedAt) : undefined,
  };
}

/** A chunked body's data, chunk after chunk; stops at the last chunk or where the bytes run out. */
function dechunk(framed: Buffer): Buffer {
  const data: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = framed.indexOf("\r\n", at);
    if (lineEnd === -1) break;
    const size = Number.parseInt(framed.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) break;
    data.push(framed.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(data);
}
