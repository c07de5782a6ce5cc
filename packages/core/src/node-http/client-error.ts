/**
 * Node's HTTP parser refuses some requests before any framework sees them: a malformed
 * `Content-Length`, a header block over the size limit, a request line that is not HTTP, a request
 * that outlived `headersTimeout` or `requestTimeout`. Node then emits `clientError` on the server and,
 * when nobody listens, writes a bare status line (Express, srvx) — or Fastify writes its own
 * `{statusCode, error, message}` body. This listener writes the contract's `{"detail": ...}` instead.
 */
import type { Duplex } from "node:stream";
import { codeForStatus, errorBody } from "../errors/error-body.js";

/** The status Node itself would choose for each parser error, as its own default handler does. */
const statusByCode: Readonly<Record<string, readonly [number, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout"],
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large"],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, "Payload Too Large"],
};
const badRequest = [400, "Bad Request"] as const;

/**
 * A `clientError` listener answering in the contract's shape, then closing the connection.
 * Like Node's default, it writes nothing when the connection is already gone or a response on it
 * has started (a second answer would corrupt the first), and it always closes the connection:
 * the parser cannot be trusted to find the next request on it.
 *
 * @example
 * const server = http.createServer(app);
 * server.on("clientError", answerClientError);
 * // Fastify: Fastify({ clientErrorHandler: answerClientError })
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason] = statusByCode[error.code ?? ""] ?? badRequest;
  const body = errorBody(codeForStatus(status), reason);
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    "Connection: close",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  // Destroyed once the bytes are handed to the kernel: ending alone would leave the socket open
  // for as long as a slow client keeps its side open.
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`, () => socket.destroy());
}
