import type { IncomingMessage } from "node:http";
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { bodyStream, fetchHeaders, headerValue, toFetchRequest } from "./node-request.js";

/** An IncomingMessage stand-in: a readable body with the fields the translation reads. */
function incoming(
  method: string,
  rawHeaders: string[],
  body: string[] = [],
): IncomingMessage & Readable {
  const stream = Readable.from(body.map((chunk) => Buffer.from(chunk)));
  return Object.assign(stream, { method, rawHeaders }) as unknown as IncomingMessage & Readable;
}

describe("fetchHeaders", () => {
  it("joins a repeated field with a comma, and cookies with a semicolon", () => {
    const headers = fetchHeaders([
      "Accept",
      "application/json",
      "Cookie",
      "a=1",
      "accept",
      "text/plain",
      "cookie",
      "b=2",
      "X-Single",
      "yes",
    ]);
    expect(headers.get("accept")).toBe("application/json, text/plain");
    expect(headers.get("cookie")).toBe("a=1; b=2");
    expect(headers.get("x-single")).toBe("yes");
  });

  it("joins two Authorization lines into one value, which no bearer parser accepts", () => {
    const headers = fetchHeaders(["Authorization", "Bearer a", "authorization", "Bearer b"]);
    expect(headers.get("authorization")).toBe("Bearer a, Bearer b");
  });

  it("drops HTTP/2 pseudo-headers", () => {
    const headers = fetchHeaders([":method", "GET", ":path", "/", "host", "example.com"]);
    expect([...headers.keys()]).toEqual(["host"]);
  });
});

describe("headerValue", () => {
  it("finds a header case-insensitively, joining repeats; undefined when absent", () => {
    const raw = ["AUTHORIZATION", "Bearer a", "Accept", "*/*", "authorization", "Bearer b"];
    expect(headerValue(raw, "authorization")).toBe("Bearer a, Bearer b");
    expect(headerValue(raw, "accept")).toBe("*/*");
    expect(headerValue(raw, "cookie")).toBeUndefined();
  });
});

describe("toFetchRequest", () => {
  it("keeps the path as given, even one that looks like another host", () => {
    const request = toFetchRequest(incoming("GET", []), {
      origin: "http://example.com",
      path: "//evil.example/api/v1/api-keys?x=1",
    });
    expect(new URL(request.url).host).toBe("example.com");
    expect(new URL(request.url).pathname).toBe("//evil.example/api/v1/api-keys");
  });

  it("falls back to localhost when the Host header is not a host", () => {
    const request = toFetchRequest(incoming("GET", []), {
      origin: "http://not a host",
      path: "/api/v1/api-keys",
    });
    expect(request.url).toBe("http://localhost/api/v1/api-keys");
  });

  it("streams an unread body", async () => {
    const request = toFetchRequest(
      incoming("POST", ["Content-Type", "application/json"], ['{"name":', '"x"}']),
      { origin: "http://example.com", path: "/" },
    );
    expect(await request.text()).toBe('{"name":"x"}');
    expect(request.headers.get("content-type")).toBe("application/json");
  });

  it.each([
    ["a parsed JSON value", { name: "x" }, '{"name":"x"}'],
    ["a string", '{"name": "x"', '{"name": "x"'],
    ["bytes", new TextEncoder().encode('{"a":1}'), '{"a":1}'],
    ["a Buffer", Buffer.from('{"b":2}'), '{"b":2}'],
    ["null", null, "null"],
    ["nothing", undefined, ""],
  ])("serialises %s a parser left, describing the new bytes", async (_label, value, text) => {
    const request = toFetchRequest(
      incoming("POST", [
        "Content-Type",
        "application/json",
        "Content-Length",
        "999",
        "Content-Encoding",
        "gzip",
        "Transfer-Encoding",
        "chunked",
      ]),
      { origin: "http://example.com", path: "/", parsedBody: { value } },
    );
    expect(await request.text()).toBe(text);
    expect(request.headers.get("content-length")).toBe(
      String(new TextEncoder().encode(text).length),
    );
    expect(request.headers.has("content-encoding")).toBe(false);
    expect(request.headers.has("transfer-encoding")).toBe(false);
  });

  it("gives GET and HEAD no body", () => {
    for (const method of ["GET", "HEAD"]) {
      const request = toFetchRequest(incoming(method, [], ["ignored"]), {
        origin: "http://example.com",
        path: "/",
        parsedBody: { value: { a: 1 } },
      });
      expect(request.body).toBeNull();
    }
  });
});

describe("bodyStream", () => {
  it("reads nothing until asked", async () => {
    const source = new PassThrough();
    const stream = bodyStream(source);
    source.write("hello");
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(source.readableFlowing).not.toBe(true);
    expect(source.readableLength).toBe(5);
    source.end();
    expect(await new Response(stream).text()).toBe("hello");
  });

  it("drains and discards the rest when the reader stops early", async () => {
    const source = new PassThrough();
    const reader = bodyStream(source).getReader();
    source.write("first");
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first");
    await reader.cancel();
    source.write("second");
    source.end();
    await new Promise((resolve) => source.once("end", resolve));
    expect(source.readableEnded).toBe(true);
  });

  it("survives an error on the source while draining", async () => {
    const source = new PassThrough();
    const reader = bodyStream(source).getReader();
    source.write("first");
    await reader.read();
    await reader.cancel();
    source.destroy(new Error("connection reset"));
    await new Promise((resolve) => source.once("close", resolve));
  });

  it("passes a source error to the reader", async () => {
    const source = new PassThrough();
    const reader = bodyStream(source).getReader();
    const read = reader.read();
    source.destroy(new Error("connection reset"));
    await expect(read).rejects.toThrow("connection reset");
  });

  it("closes at once over a source already read to its end", async () => {
    const source = Readable.from([]);
    source.resume();
    await new Promise((resolve) => source.once("end", resolve));
    expect(await new Response(bodyStream(source)).text()).toBe("");
  });
});
