/**
 * What the Fastify plugin itself must get right: encapsulation (its body handling stays inside its
 * routes, its decorators reach the host), bodies on a host with its own JSON parser, the body
 * limit, repeated headers, the guard's headers, and usage recorded under the route template.
 */
import {
  describeClientAddress,
  describeGuardOptions,
  expectRateLimited,
  mintJwt,
  PROFILE_ROUTE,
  rawRequest,
  readReply,
} from "@keyward/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keywardPlugin } from "../src/index.js";
import { demoApp, demoKeyward, jwtSecret, listen } from "./demo.js";

const keyward = demoKeyward();
const apps: FastifyInstance[] = [];
const serve = async (app: FastifyInstance) => {
  apps.push(app);
  return listen(app);
};
let origin = "";

beforeAll(async () => {
  origin = await serve(await demoApp(keyward));
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await keyward.close();
});

const newUserId = () => `user_${crypto.randomUUID()}`;
const bearer = async (sub: string, tier = "free") =>
  `Bearer ${await mintJwt(jwtSecret, { sub, tier })}`;
const createBody = { name: "adapter test", scopes: ["profile:read"], tier: "free" };
const post = async (at: string, path: string, body: string, authorization?: string) =>
  fetch(new URL(path, at), {
    method: "POST",
    headers: {
      authorization: authorization ?? (await bearer(newUserId())),
      "content-type": "application/json",
    },
    body,
  });
const createKey = async (ownerId: string, scopes = ["profile:read"]) =>
  keyward.keys.create({ ownerId, accountTier: "free", name: "guarded", scopes, tier: "free" });

describe("encapsulation", () => {
  it("decorates the registering instance with keyward, requireApiKey and request.keyward", async () => {
    const app = Fastify();
    await app.register(keywardPlugin, { keyward });
    await app.ready();
    expect(app.keyward).toBe(keyward);
    expect(typeof app.requireApiKey).toBe("function");
    expect(app.hasRequestDecorator("keyward")).toBe(true);
    await app.close();
  });

  it("refuses to register without a Keyward instance", async () => {
    const app = Fastify();
    // @ts-expect-error the option is required
    app.register(keywardPlugin, {});
    await expect(app.ready()).rejects.toThrow(/keyward/);
  });

  it("keeps its catch-all body parser to its own routes", async () => {
    const app = Fastify();
    await app.register(keywardPlugin, { keyward });
    app.post("/echo", async (request) => ({ body: request.body }));
    const at = await serve(app);
    const json = await fetch(new URL("/echo", at), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"parsed": true}',
    });
    expect(await json.json()).toEqual({ body: { parsed: true } });
    const xml = await fetch(new URL("/echo", at), {
      method: "POST",
      headers: { "content-type": "application/xml" },
      body: "<a/>",
    });
    expect(xml.status).toBe(415);
  });

  it("reads its own bodies raw even when the host replaced the JSON parser", async () => {
    const app = Fastify();
    app.removeContentTypeParser("application/json");
    app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, _body, done) =>
      done(null, { replacedBy: "host" }),
    );
    await app.register(keywardPlugin, { keyward });
    const at = await serve(app);
    const created = await post(at, keyward.basePath, JSON.stringify(createBody));
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: "adapter test" });
    expect((await post(at, keyward.basePath, '{"name": "unterminated')).status).toBe(400);
  });

  it("serves the base path under the prefix of the context it is registered in", async () => {
    const app = Fastify();
    await app.register(
      async (auth) => {
        await auth.register(keywardPlugin, { keyward });
      },
      { prefix: "/auth" },
    );
    const at = await serve(app);
    const reply = await fetch(new URL(`/auth${keyward.basePath}/scopes?x=1`, at), {
      headers: { authorization: await bearer(newUserId()) },
    });
    expect(reply.status).toBe(200);
    expect((await fetch(new URL(`${keyward.basePath}/scopes`, at))).status).toBe(404);
  });
});

describe("request bodies", () => {
  it("creates a key on a host that keeps Fastify's JSON parser, and the host's routes still parse", async () => {
    const created = await post(origin, keyward.basePath, JSON.stringify(createBody));
    expect(created.status).toBe(201);
    const user = newUserId();
    const put = await fetch(new URL("/api/v1/profiles/alice", origin), {
      method: "PUT",
      headers: { authorization: await bearer(user), "content-type": "application/json" },
      body: JSON.stringify({ displayName: "Alice" }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ slug: "alice", updatedBy: user });
  });

  it("reads the body as JSON whatever its Content-Type says", async () => {
    const authorization = await bearer(newUserId());
    const plain = await fetch(new URL(keyward.basePath, origin), {
      method: "POST",
      headers: { authorization, "content-type": "text/plain" },
      body: JSON.stringify(createBody),
    });
    expect(plain.status).toBe(201);
    const malformed = await fetch(new URL(keyward.basePath, origin), {
      method: "POST",
      headers: { authorization, "content-type": "text/plain" },
      body: "name=x",
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({
      detail: expect.any(String),
      code: expect.any(String),
    });
  });

  it("413 with the contract body for a declared Content-Length over the limit", async () => {
    const reply = await post(
      origin,
      keyward.basePath,
      JSON.stringify({ ...createBody, padding: "p".repeat(70_000) }),
    );
    expect(reply.status).toBe(413);
    expect(await reply.json()).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });

  it("413 for a chunked body that grows past the limit, and the server keeps serving", async () => {
    const chunk = `"${"p".repeat(8 * 1024)}",`;
    const reply = await rawRequest(origin, {
      method: "POST",
      path: keyward.basePath,
      headers: { authorization: await bearer(newUserId()), "content-type": "application/json" },
      body: ["[", ...Array.from({ length: 10 }, () => chunk), '""]'],
    });
    expect(reply.status).toBe(413);
    expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
    expect((await post(origin, keyward.basePath, JSON.stringify(createBody))).status).toBe(201);
  });

  it("does not read the body of a request refused before it is needed", async () => {
    const large = JSON.stringify({ ...createBody, padding: "p".repeat(1e6) });
    expect((await post(origin, keyward.basePath, large, "Bearer nope")).status).toBe(401);
    expect((await post(origin, keyward.basePath, JSON.stringify(createBody))).status).toBe(201);
  });

  it("follows Keyward's limit, not Fastify's bodyLimit, on its own routes", async () => {
    const small = demoKeyward({ bodyLimit: 1024 });
    const tightHost = Fastify({ bodyLimit: 100 });
    await tightHost.register(keywardPlugin, { keyward: small });
    const at = await serve(tightHost);
    const padded = JSON.stringify({ ...createBody, padding: "p".repeat(2048) });
    expect((await post(at, small.basePath, padded)).status).toBe(413);
    // 500 bytes: over the host's 100, under Keyward's 1024.
    const medium = JSON.stringify({ ...createBody, padding: "p".repeat(400) });
    expect((await post(at, small.basePath, medium)).status).toBe(201);
    await small.close();
  });
});

describe("repeated headers", () => {
  it("refuses two Authorization lines on the key-management routes and on guarded routes", async () => {
    const token = await bearer(newUserId());
    for (const path of [keyward.basePath, "/api/v1/profiles/alice"]) {
      const reply = await rawRequest(origin, {
        method: "GET",
        path,
        headers: { authorization: [token, token] },
      });
      expect(reply.status, path).toBe(401);
      expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
    }
  });

  it("serves a request whose other headers repeat", async () => {
    const reply = await rawRequest(origin, {
      method: "GET",
      path: keyward.basePath,
      headers: {
        authorization: await bearer(newUserId()),
        accept: ["application/json", "text/plain"],
        cookie: ["a=1", "b=2"],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ data: [] });
  });
});

describe("the guard", () => {
  it("puts the principal on request.keyward and the rate-limit headers on the host's reply", async () => {
    const owner = newUserId();
    const key = await createKey(owner);
    const reply = await fetch(new URL("/api/v1/profiles/alice", origin), {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ slug: "alice", viewer: owner });
    expect(reply.headers.get("x-ratelimit-limit")).toBe("60");
    expect(reply.headers.get("x-ratelimit-remaining")).toBe("59");
    expect(reply.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
  });

  it("answers 429 with Retry-After and the rate-limit headers once the allowance is spent", async () => {
    const tight = demoKeyward({ tiers: { free: { rateLimit: { limit: 2, window: "1m" } } } });
    const key = await tight.keys.create({
      ownerId: newUserId(),
      accountTier: "free",
      name: "tight",
      scopes: ["profile:read"],
      tier: "free",
    });
    let handled = 0;
    const app = Fastify();
    await app.register(keywardPlugin, { keyward: tight });
    app.get(
      "/limited/:id",
      { preHandler: app.requireApiKey({ scopes: ["profile:read"] }) },
      async () => {
        handled += 1;
        return { ok: true };
      },
    );
    const at = await serve(app);
    const call = () =>
      fetch(new URL("/limited/1", at), { headers: { authorization: `Bearer ${key.key}` } });
    expect((await call()).status).toBe(200);
    expect((await call()).headers.get("x-ratelimit-remaining")).toBe("0");
    // 429 with {detail}, Retry-After ≥ 1 s and the X-RateLimit-* headers at 0 remaining.
    expectRateLimited(await readReply(await call()), 2);
    expect(handled).toBe(2);
    await tight.close();
  });

  it("records usage under the route template, never the raw path", async () => {
    const owner = newUserId();
    const key = await createKey(owner, ["profile:read", "profile:write"]);
    const authorization = `Bearer ${key.key}`;
    for (const slug of ["alice", "bob"]) {
      const reply = await fetch(new URL(`/api/v1/profiles/${slug}`, origin), {
        headers: { authorization },
      });
      expect(reply.status).toBe(200);
    }
    const put = await fetch(new URL("/api/v1/profiles/carol", origin), {
      method: "PUT",
      headers: { authorization, "content-type": "application/json" },
      body: "{}",
    });
    expect(put.status).toBe(200);
    const usage = await keyward.keys.usage(owner, key.id);
    expect(usage.totalRequests).toBe(3);
    expect(usage.endpoints).toHaveLength(2);
    expect(usage.endpoints).toEqual(
      expect.arrayContaining([
        { method: "GET", route: PROFILE_ROUTE, count: 2 },
        { method: "PUT", route: PROFILE_ROUTE, count: 1 },
      ]),
    );
  });

  it("includes the route's prefix in the template, and takes an explicit route", async () => {
    const owner = newUserId();
    const key = await createKey(owner);
    const app = Fastify();
    await app.register(keywardPlugin, { keyward });
    await app.register(
      async (v2) => {
        v2.get("/profiles/:slug", { preHandler: app.requireApiKey() }, async () => ({ ok: true }));
      },
      { prefix: "/api/v2" },
    );
    app.get(
      "/api/v4/:id",
      { preHandler: app.requireApiKey({ route: "/api/v4/{id}" }) },
      async () => ({ ok: true }),
    );
    const at = await serve(app);
    for (const path of ["/api/v2/profiles/alice", "/api/v4/7"]) {
      const reply = await fetch(new URL(path, at), {
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(reply.status, path).toBe(200);
    }
    const usage = await keyward.keys.usage(owner, key.id);
    expect(usage.endpoints.map(({ method, route }) => `${method} ${route}`).sort()).toEqual([
      "GET /api/v2/profiles/:slug",
      "GET /api/v4/{id}",
    ]);
  });
});

describe("routing", () => {
  it("answers everything under the base path with contract bodies, and nothing outside it", async () => {
    const authorization = await bearer(newUserId());
    const unknown = await fetch(new URL(`${keyward.basePath}/x/y/z`, origin), {
      headers: { authorization },
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "Not Found", code: "route_not_found" });
    const wrongMethod = await fetch(new URL(`${keyward.basePath}/scopes`, origin), {
      method: "DELETE",
      headers: { authorization },
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
    // Fastify's own not-found handler, not Keyward's.
    const outside = await fetch(new URL("/api/v1/api-keysX", origin));
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ error: "Not Found" });
  });
});

// request.ip, so Fastify's `trustProxy` decides whether X-Forwarded-For counts.
describeClientAddress("Fastify 5", {
  serve: async (keyward, { trustLoopbackProxy }) => {
    const app = await demoApp(keyward, trustLoopbackProxy ? { trustProxy: "loopback" } : {});
    return { origin: await listen(app), close: () => app.close() };
  },
});

describeGuardOptions("Fastify 5", {
  serve: async (keyward, guard) => {
    const app = Fastify();
    await app.register(keywardPlugin, { keyward });
    app.get("/guarded", { preHandler: app.requireApiKey(guard) }, async (request) => ({
      kind: request.keyward!.principal.kind,
      userId: request.keyward!.principal.userId,
    }));
    return { origin: await listen(app), close: () => app.close() };
  },
  createGuard: async (keyward, guard) => {
    const app = Fastify();
    await app.register(keywardPlugin, { keyward });
    try {
      return app.requireApiKey(guard);
    } finally {
      await app.close();
    }
  },
});
