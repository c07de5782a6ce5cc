/**
 * What is particular to the Fastify plugin: encapsulation (its body handling stays inside its
 * routes, its decorators reach the registering instance), a host that replaced the JSON parser or
 * set its own bodyLimit, and the route template under a prefix. What every Node adapter must get
 * right (the body limit, repeated headers, the guard, routing, client addresses, guard options) is
 * `@keyward/testing`'s `describeNodeAdapterConformance`; the HTTP contract is
 * `describeHttpConformance` in conformance.test.ts.
 */
import { describeNodeAdapterConformance, mintJwt } from "@keyward/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { keywardPlugin } from "../src/index.js";
import { demoApp, demoKeyward, jwtSecret, listen } from "./demo.js";

const keyward = demoKeyward();
const apps: FastifyInstance[] = [];
const serve = async (app: FastifyInstance) => {
  apps.push(app);
  return listen(app);
};

describeNodeAdapterConformance("Fastify 5", {
  serve: async (served, host) => {
    const app = await demoApp(served, host);
    return { origin: await listen(app), close: () => app.close() };
  },
  createGuard: async (served, guard) => {
    const app = Fastify();
    await app.register(keywardPlugin, { keyward: served });
    try {
      return app.requireApiKey(guard);
    } finally {
      await app.close();
    }
  },
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
});

describe("the body limit", () => {
  it("follows Keyward's limit, not Fastify's bodyLimit, on its own routes", async () => {
    const small = demoKeyward({ http: { bodyLimit: 1024 } });
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

describe("the guard", () => {
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
  it("leaves everything outside the base path to Fastify's own not-found handler", async () => {
    const origin = await serve(await demoApp(keyward));
    const outside = await fetch(new URL("/api/v1/api-keysX", origin));
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ error: "Not Found" });
  });
});
