import { createServer, type Server, type ServerOptions } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { answerClientError } from "./client-error.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/** A real server with `answerClientError` on `clientError`; its handler starts a response. */
async function listen(options: ServerOptions = {}): Promise<number> {
  server = createServer(options, (_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.write("started");
  });
  server.on("clientError", answerClientError);
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
  return (server.address() as AddressInfo).port;
}

/** Writes each piece in turn (the next once the server answered something) and reads to the close. */
function exchange(port: number, ...pieces: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
      const next = pieces.shift();
      if (next !== undefined) socket.write(next);
    });
    socket.on("close", () => resolve(received));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNRESET") reject(error);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`the server kept the connection open; received ${JSON.stringify(received)}`),
      );
    }, 5_000);
    socket.on("close", () => clearTimeout(timer));
    socket.write(pieces.shift()!);
  });
}

function parse(raw: string) {
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  const [statusLine, ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(":")).toLowerCase(),
      line.slice(line.indexOf(":") + 1).trim(),
    ]),
  );
  return { statusLine, headers, body };
}

describe("answerClientError", () => {
  it("answers a malformed Content-Length with 400 and the contract body, then closes", async () => {
    const port = await listen();
    const raw = await exchange(port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}");
    const reply = parse(raw);
    expect(reply.statusLine).toBe("HTTP/1.1 400 Bad Request");
    expect(reply.headers["content-type"]).toBe("application/json");
    expect(reply.headers.connection).toBe("close");
    expect(reply.headers["content-length"]).toBe(String(reply.body.length));
    expect(JSON.parse(reply.body)).toEqual({ detail: "Bad Request", code: "malformed_request" });
  });

  it("answers a header block over the limit with 431", async () => {
    const port = await listen({ maxHeaderSize: 1024 });
    const raw = await exchange(
      port,
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(2048)}\r\n\r\n`,
    );
    expect(parse(raw).statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(JSON.parse(parse(raw).body)).toEqual({
      detail: "Request Header Fields Too Large",
      code: "headers_too_large",
    });
  });

  it("answers headers that never finish with 408 once headersTimeout passes", async () => {
    const port = await listen({
      headersTimeout: 200,
      requestTimeout: 400,
      connectionsCheckingInterval: 50,
    });
    const raw = await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\n");
    expect(parse(raw).statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(JSON.parse(parse(raw).body)).toEqual({
      detail: "Request Timeout",
      code: "request_timeout",
    });
  });

  it("writes nothing into a response already under way, and closes the connection", async () => {
    const port = await listen();
    // The first request gets its head and "started"; the second, pipelined, is not HTTP.
    const raw = await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "NOT HTTP\r\n\r\n");
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(raw).toContain("started");
    expect(raw).not.toContain("400");
    expect(raw).not.toContain("detail");
  });
});
