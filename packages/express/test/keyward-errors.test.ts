/**
 * Every answer in the contract's `{"detail": ...}` shape, over raw HTTP: Express's final handler
 * answers HTML (`Cannot GET /x`, a body parser's `SyntaxError` quoting the body), Node's parser a
 * bare status line. With `keywardNotFound`, `keywardErrorHandler` and `answerClientError`, on
 * Express 4 and 5 alike (the helpers import nothing from Express at run time).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { rawExchange, requestBytes as request } from "@keyward/testing";
import express from "express";
import express4 from "express4";
import { afterAll, describe, expect, it } from "vitest";
import { answerClientError, keywardErrorHandler, keywardNotFound } from "../src/index.js";
import type { ExpressModule } from "./demo.js";

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
});

async function serve(app: ReturnType<ExpressModule>): Promise<string> {
  const server = createServer(app);
  server.on("clientError", answerClientError);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function expectDetail(
  reply: { status: number; headers: Record<string, string>; json: unknown },
  status: number,
) {
  expect(reply.status, JSON.stringify(reply)).toBe(status);
  expect(reply.headers["content-type"]).toBe("application/json");
  expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
  return (reply.json as { detail: string }).detail;
}

describe.each([
  ["Express 5", express],
  ["Express 4", express4 as unknown as ExpressModule],
])("%s host with keywardNotFound and keywardErrorHandler", (_name, expressModule) => {
  const failures: unknown[] = [];
  let origin = "";

  const started = (async () => {
    const app = expressModule();
    app.put("/profiles/:slug", expressModule.json({ limit: "1kb" }), (req, res) => {
      res.json({ body: req.body });
    });
    app.get("/fails", () => {
      throw new Error("password authentication failed for user keyward");
    });
    app.get("/conflict", (_req, _res, next) => {
      next(Object.assign(new Error("Slug already taken"), { status: 409, expose: true }));
    });
    app.get("/private", (_req, _res, next) => {
      next(Object.assign(new Error("row 42 of tenant 7 is locked"), { status: 403 }));
    });
    app.get("/limited", (_req, _res, next) => {
      next(
        Object.assign(new Error("Slow down"), {
          status: 429,
          expose: true,
          headers: { "retry-after": "7" },
        }),
      );
    });
    app.get("/started", (_req, res, next) => {
      res.write("partial");
      next(new Error("after the head"));
    });
    app.use(keywardNotFound());
    app.use(keywardErrorHandler({ onError: (error) => failures.push(error) }));
    origin = await serve(app);
  })();

  it("bad JSON: 400 in Keyward's wording, never quoting the body", async () => {
    await started;
    const reply = await rawExchange(
      origin,
      request("PUT", "/profiles/a", { "content-type": "application/json" }, '{"secret":sk_live_x'),
    );
    expect(expectDetail(reply, 400)).toBe("Malformed JSON in request body");
    expect(reply.body).not.toContain("sk_live_x");
  });

  it("a body over the parser's limit, an unsupported charset; a good body still parses", async () => {
    await started;
    const json = { "content-type": "application/json" };
    // Sent whole: body-parser reads a refused body to its end before it passes the error on.
    const tooLarge = await rawExchange(
      origin,
      request("PUT", "/profiles/a", json, JSON.stringify({ padding: "p".repeat(2048) })),
    );
    expectDetail(tooLarge, 413);
    const charset = await rawExchange(
      origin,
      request("PUT", "/profiles/a", { "content-type": "application/json; charset=koi8-r" }, "{}"),
    );
    expectDetail(charset, 415);
    const fine = await rawExchange(origin, request("PUT", "/profiles/a", json, '{"a":1}'));
    expect(fine.json).toEqual({ body: { a: 1 } });
  });

  it("an unknown route, a route parameter that does not decode", async () => {
    await started;
    expect(expectDetail(await rawExchange(origin, request("GET", "/nowhere")), 404)).toBe(
      "Not Found",
    );
    const badParam = await rawExchange(origin, request("PUT", "/profiles/%zz"));
    expect(expectDetail(badParam, 400)).toBe("Bad Request");
  });

  it("a malformed Content-Length, refused by Node's parser, with answerClientError", async () => {
    await started;
    const reply = await rawExchange(
      origin,
      request(
        "PUT",
        "/profiles/a",
        { "content-length": "abc", "content-type": "application/json" },
        "{}",
      ),
    );
    expect(expectDetail(reply, 400)).toBe("Bad Request");
  });

  it("a 500 reveals nothing and reaches onError; a 4xx shows only an exposed message", async () => {
    await started;
    const failed = await rawExchange(origin, request("GET", "/fails"));
    expect(expectDetail(failed, 500)).toBe("Internal server error");
    expect(failed.raw).not.toContain("password");
    expect(String(failures.at(-1))).toContain("password authentication failed");
    expect(expectDetail(await rawExchange(origin, request("GET", "/conflict")), 409)).toBe(
      "Slug already taken",
    );
    expect(expectDetail(await rawExchange(origin, request("GET", "/private")), 403)).toBe(
      "Forbidden",
    );
    const limited = await rawExchange(origin, request("GET", "/limited"));
    expectDetail(limited, 429);
    expect(limited.headers["retry-after"]).toBe("7");
  });

  it("leaves an error after the response started to Express, which closes the connection", async () => {
    await started;
    const reply = await rawExchange(origin, request("GET", "/started"));
    expect(reply.status).toBe(200);
    expect(reply.closed).toBe(true);
    expect(reply.raw).not.toContain("detail");
  });
});
