/**
 * Every answer in the contract's `{"detail": ...}` shape, over raw HTTP: on the plugin's own routes
 * whatever the host does, and on the host's routes once it installs `keywardErrors` and
 * `keywardServerOptions`. Fastify's own shape is `{statusCode, code, error, message}`.
 */
import { mintJwt, rawExchange, requestBytes as request } from "@keyward/testing";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import {
  keywardErrorHandler,
  keywardErrors,
  keywardPlugin,
  keywardServerOptions,
} from "../src/index.js";
import { demoApp, demoKeyward, jwtSecret, listen } from "./demo.js";

const keyward = demoKeyward();
const apps: FastifyInstance[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await keyward.close();
});

const base = keyward.basePath;
const session = async () =>
  `Bearer ${await mintJwt(jwtSecret, { sub: `user_${crypto.randomUUID()}`, tier: "free" })}`;

async function serve(app: FastifyInstance): Promise<string> {
  apps.push(app);
  return listen(app);
}

/** A reply in the contract's shape: the status, JSON, and nothing but a string `detail`. */
function expectDetail(
  reply: { status: number; headers: Record<string, string>; json: unknown },
  status: number,
) {
  expect(reply.status, JSON.stringify(reply)).toBe(status);
  expect(reply.headers["content-type"]).toMatch(/^application\/json/);
  expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
  return (reply.json as { detail: string }).detail;
}

describe("on the plugin's own routes, with no help from the host", () => {
  it("answers a Content-Type header Fastify cannot parse with 415 in the contract's shape", async () => {
    const origin = await serve(await demoApp(keyward));
    const reply = await rawExchange(
      origin,
      request("POST", base, { authorization: await session(), "content-type": ";;;" }, "{}"),
    );
    expect(expectDetail(reply, 415)).toBe("Unsupported Media Type");
  });

  it("bad JSON under the base path whose dot segments lead out of it: Keyward's 404, not a parser's 400", async () => {
    const origin = await serve(await demoApp(keyward));
    const reply = await rawExchange(
      origin,
      request("PUT", `${base}/%2e%2e/scopes`, { "content-type": "application/json" }, "{bad"),
    );
    expect(expectDetail(reply, 404)).toBe("Not Found");
  });

  it("answers what a host hook throws with a 500 that reveals nothing, while the host's routes keep Fastify's handler", async () => {
    const app = Fastify();
    app.addHook("onRequest", async () => {
      throw new Error("connection to db-internal:5432 refused");
    });
    await app.register(keywardPlugin, { keyward });
    app.get("/host", async () => ({ ok: true }));
    const origin = await serve(app);
    const reply = await rawExchange(origin, request("GET", `${base}/scopes`));
    expect(expectDetail(reply, 500)).toBe("Internal server error");
    expect(reply.raw).not.toContain("db-internal");
    const host = await rawExchange(origin, request("GET", "/host"));
    expect(host.json).toMatchObject({ statusCode: 500, message: expect.any(String) });
  });
});

describe("on the host's routes, with keywardErrors and keywardServerOptions", () => {
  const logged: string[] = [];

  async function hostApp(options: FastifyServerOptions = {}) {
    const app = Fastify({
      ...keywardServerOptions,
      logger: { level: "error", stream: { write: (line: string) => logged.push(line) } },
      ...options,
    });
    await app.register(keywardErrors);
    await app.register(keywardPlugin, { keyward });
    app.put("/profiles/:slug", async (request) => ({ body: request.body }));
    app.get("/fails", async () => {
      throw new Error("password authentication failed for user keyward");
    });
    app.get("/conflict", async () => {
      throw Object.assign(new Error("Slug already taken"), { statusCode: 409 });
    });
    app.get("/gone", async (_request, reply) => {
      reply.code(410);
      throw new Error("Profile deleted");
    });
    app.get("/limited", async () => {
      throw Object.assign(new Error("Slow down"), {
        statusCode: 429,
        headers: { "retry-after": "7" },
      });
    });
    return serve(app);
  }

  it("bad JSON, an empty JSON body, a body over bodyLimit and an unsupported media type", async () => {
    const origin = await hostApp({ bodyLimit: 1024 });
    const json = { "content-type": "application/json" };
    expectDetail(await rawExchange(origin, request("PUT", "/profiles/a", json, "{bad")), 400);
    expectDetail(await rawExchange(origin, request("PUT", "/profiles/a", json, " ")), 400);
    const tooLarge = await rawExchange(
      origin,
      request("PUT", "/profiles/a", { ...json, "content-length": "2000000" }, "{"),
    );
    expectDetail(tooLarge, 413);
    const xml = await rawExchange(
      origin,
      request("PUT", "/profiles/a", { "content-type": "application/xml" }, "<a/>"),
    );
    expectDetail(xml, 415);
    const fine = await rawExchange(origin, request("PUT", "/profiles/a", json, '{"a":1}'));
    expect(fine.json).toEqual({ body: { a: 1 } });
  });

  it("an unknown route, a URL that does not decode, a path parameter over maxParamLength", async () => {
    const origin = await hostApp();
    expect(expectDetail(await rawExchange(origin, request("GET", "/nowhere")), 404)).toBe(
      "Not Found",
    );
    const badUrl = await rawExchange(origin, request("PUT", "/profiles/%zz"));
    expect(expectDetail(badUrl, 400)).toBe("Malformed URL");
    expect(badUrl.body).not.toContain("%zz");
    const longParam = await rawExchange(origin, request("PUT", `/profiles/${"p".repeat(200)}`));
    expectDetail(longParam, 414);
  });

  it("what Node's parser refuses: a malformed Content-Length, a header block over the limit", async () => {
    const origin = await hostApp();
    const malformed = await rawExchange(
      origin,
      request(
        "PUT",
        "/profiles/a",
        { "content-length": "abc", "content-type": "application/json" },
        "{}",
      ),
    );
    expect(expectDetail(malformed, 400)).toBe("Bad Request");
    const headers = await rawExchange(
      origin,
      request("GET", "/profiles/a", { "x-big": "h".repeat(20_000) }),
    );
    expectDetail(headers, 431);
  });

  it("a 500 reveals nothing and is logged; a 4xx keeps its message, status and headers", async () => {
    const origin = await hostApp();
    const failed = await rawExchange(origin, request("GET", "/fails"));
    expect(expectDetail(failed, 500)).toBe("Internal server error");
    expect(failed.raw).not.toContain("password");
    expect(logged.join("")).toContain("password authentication failed");
    expect(expectDetail(await rawExchange(origin, request("GET", "/conflict")), 409)).toBe(
      "Slug already taken",
    );
    expect(expectDetail(await rawExchange(origin, request("GET", "/gone")), 410)).toBe(
      "Profile deleted",
    );
    const limited = await rawExchange(origin, request("GET", "/limited"));
    expectDetail(limited, 429);
    expect(limited.headers["retry-after"]).toBe("7");
  });

  it("keywardErrorHandler serves a host's own error handler for the errors it leaves", async () => {
    const app = Fastify();
    app.setErrorHandler((error, request, reply) => {
      if (error instanceof RangeError) return reply.code(402).send({ detail: "Pay first" });
      return keywardErrorHandler(error, request, reply);
    });
    app.get("/pay", async () => {
      throw new RangeError("credits");
    });
    app.get("/other", async () => {
      throw new Error("internal");
    });
    const origin = await serve(app);
    expect((await rawExchange(origin, request("GET", "/pay"))).json).toEqual({
      detail: "Pay first",
    });
    expect(expectDetail(await rawExchange(origin, request("GET", "/other")), 500)).toBe(
      "Internal server error",
    );
  });
});
