/**
 * What @keyward/hono adds to core: the key-management endpoints in front of the host's routes, the
 * guards with `c.get("keyward")`, the client address from Hono's conninfo helper, and the
 * rate-limit headers on whatever a route answers. Over real HTTP on @hono/node-server.
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Principal } from "@keyward/core";
import {
  describeClientAddress,
  describeGuardOptions,
  mintJwt,
  PROFILE_ROUTE,
  rawRequest,
} from "@keyward/testing";
import { type Context, Hono } from "hono";
import { afterAll, afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { type KeywardEnv, keyward, requireApiKey, requireScopes } from "../src/index.js";
import { demoApp, demoKeyward, jwtSecret } from "./demo.js";
import { type Listening, listen } from "./node-server.js";

const instance = demoKeyward();
const opened: Listening[] = [];
const serve = async (app: Parameters<typeof listen>[0]) => {
  const server = await listen(app);
  opened.push(server);
  return server.origin;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
});
afterAll(() => instance.close());

const newUserId = () => `user_${crypto.randomUUID()}`;
const bearer = async (sub: string, tier = "free") =>
  `Bearer ${await mintJwt(jwtSecret, { sub, tier })}`;
const createKey = (ownerId: string, scopes = ["profile:read"]) =>
  instance.keys.create({ ownerId, accountTier: "free", name: "test", scopes, tier: "free" });

/**
 * Trusts `X-Forwarded-For` from a proxy on a loopback address only: its last entry is the one that
 * proxy appended. What a host behind one trusted proxy writes as `clientIp`.
 */
const behindLoopbackProxy = (c: Context) => {
  const socket = getConnInfo(c).remote.address;
  const forwarded = c.req.header("x-forwarded-for");
  const fromLoopback = socket !== undefined && /^(::ffff:)?127\.|^::1$/.test(socket);
  if (!fromLoopback || !forwarded) return socket;
  return forwarded.split(",").at(-1)!.trim();
};

describeClientAddress("@keyward/hono with getConnInfo", {
  serve: async (keywardInstance, { trustLoopbackProxy }) => {
    const app = demoApp(
      keywardInstance,
      trustLoopbackProxy ? { clientIp: behindLoopbackProxy } : { getConnInfo },
    );
    const server = await listen(app);
    return server;
  },
});

describeGuardOptions("@keyward/hono requireApiKey", {
  serve: (keywardInstance, guard) => {
    const app = new Hono<KeywardEnv>();
    app.get("/guarded", requireApiKey(keywardInstance, guard), (c) => {
      const { principal } = c.get("keyward");
      return c.json({ kind: principal.kind, userId: principal.userId });
    });
    return listen(app);
  },
  createGuard: (keywardInstance, guard) => requireApiKey(keywardInstance, guard),
});

describe("keyward()", () => {
  it("answers under the base path and lets every other request through to the host's routes", async () => {
    const app = new Hono<KeywardEnv>();
    app.use(keyward(instance));
    app.get("/api/v1/api-keys/scopes", (c) => c.text("the host's, never reached"));
    app.get("/elsewhere", (c) => c.text("host"));
    const origin = await serve(app);
    const scopes = await fetch(`${origin}/api/v1/api-keys/scopes`, {
      headers: { authorization: await bearer(newUserId()) },
    });
    expect(scopes.status).toBe(200);
    expect((await scopes.json()).data).toHaveLength(4);
    const unknown = await fetch(`${origin}/api/v1/api-keys/x/y/z`);
    expect(unknown.status).toBe(404);
    expect(Object.keys(await unknown.json()).sort()).toEqual(["code", "detail"]);
    expect(await (await fetch(`${origin}/elsewhere`)).text()).toBe("host");
  });

  it("hands Keyward the body an earlier middleware already read", async () => {
    const app = new Hono<KeywardEnv>();
    app.use(async (c, next) => {
      if (c.req.method === "POST") await c.req.json(); // e.g. a request logger, or a validator
      await next();
    });
    app.use(keyward(instance));
    const origin = await serve(app);
    const created = await fetch(`${origin}/api/v1/api-keys`, {
      method: "POST",
      headers: { authorization: await bearer(newUserId()), "content-type": "application/json" },
      body: JSON.stringify({ name: "read first", scopes: ["profile:read"], tier: "free" }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: "read first", scopes: ["profile:read"] });
  });
});

describe("requireScopes and requireApiKey", () => {
  it("puts { principal, rateLimit } on c.get('keyward') and the rate-limit headers on the answer", async () => {
    const owner = newUserId();
    const { key, id } = await createKey(owner);
    const seen: Principal[] = [];
    const app = new Hono();
    app.use(keyward(instance));
    app.get("/api/v1/profiles/:slug", requireScopes("profile:read"), (c) => {
      expectTypeOf(c.get("keyward").principal).toEqualTypeOf<Principal>();
      seen.push(c.get("keyward").principal);
      // A response whose headers are immutable as created: the guard's still reach the client.
      return Response.redirect("https://example.test/elsewhere", 302);
    });
    const origin = await serve(app);
    const reply = await rawRequest(origin, {
      method: "GET",
      path: "/api/v1/profiles/alice",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(reply.status).toBe(302);
    expect(reply.headers["x-ratelimit-limit"]).toBe("60");
    expect(reply.headers["x-ratelimit-remaining"]).toBe("59");
    expect(seen).toEqual([expect.objectContaining({ kind: "key", userId: owner, keyId: id })]);
    const usage = await instance.keys.usage(owner, id);
    expect(usage.endpoints).toEqual([{ method: "GET", route: PROFILE_ROUTE, count: 1 }]);
  });

  it("records usage under the route option when mounted with app.use on a wildcard", async () => {
    const owner = newUserId();
    const { key, id } = await createKey(owner);
    const app = new Hono<KeywardEnv>();
    app.use(keyward(instance));
    app.use(
      "/api/v1/profiles/*",
      requireApiKey({ scopes: ["profile:read"], route: PROFILE_ROUTE }),
    );
    app.get("/api/v1/profiles/:slug", (c) => c.json({ viewer: c.var.keyward.principal.userId }));
    const origin = await serve(app);
    const response = await fetch(`${origin}/api/v1/profiles/bob`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await response.json()).toEqual({ viewer: owner });
    const usage = await instance.keys.usage(owner, id);
    expect(usage.endpoints).toEqual([{ method: "GET", route: PROFILE_ROUTE, count: 1 }]);
  });

  it("refuses with Keyward's answer, and the route never runs", async () => {
    const { key } = await createKey(newUserId(), ["profile:read"]);
    let ran = false;
    const app = new Hono<KeywardEnv>();
    app.use(keyward(instance));
    app.put("/api/v1/profiles/:slug", requireScopes("profile:write"), (c) => {
      ran = true;
      return c.text("updated");
    });
    const origin = await serve(app);
    const refused = await fetch(`${origin}/api/v1/profiles/alice`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ detail: expect.any(String), code: expect.any(String) });
    expect(ran).toBe(false);
  });

  it("fails loudly when no keyward() is mounted and no instance is given", async () => {
    const errors: unknown[] = [];
    const app = new Hono<KeywardEnv>();
    app.get("/x", requireScopes("profile:read"), (c) => c.text("never"));
    app.onError((error, c) => {
      errors.push(error);
      return c.text("failed", 500);
    });
    const origin = await serve(app);
    expect((await fetch(`${origin}/x`)).status).toBe(500);
    expect(String(errors[0])).toMatch(/register app\.use\(keyward\(instance\)\)/);
  });

  it("refuses a scope the mounted instance does not know, naming it, on the first request", async () => {
    const errors: unknown[] = [];
    const app = new Hono<KeywardEnv>();
    app.use(keyward(instance));
    app.get("/x", requireScopes("profile:raed"), (c) => c.text("never"));
    app.onError((error, c) => {
      errors.push(error);
      return c.text("failed", 500);
    });
    const origin = await serve(app);
    const response = await fetch(`${origin}/x`, {
      headers: { authorization: await bearer(newUserId()) },
    });
    expect(response.status).toBe(500);
    expect(String(errors[0])).toMatch(/"profile:raed" is not a configured scope/);
  });

  it("takes the client address from a guard's own getConnInfo over keyward()'s", async () => {
    const seen: (string | undefined)[] = [];
    const recording = {
      ...instance,
      authenticate: (request: Request, options?: Parameters<typeof instance.authenticate>[1]) => {
        seen.push(options?.clientIp);
        return instance.authenticate(request, options);
      },
    };
    const app = new Hono<KeywardEnv>();
    app.use(keyward(recording, { clientIp: () => "192.0.2.1" }));
    app.get("/mounted", requireScopes(), (c) => c.text("ok"));
    app.get("/own", requireApiKey({ getConnInfo }), (c) => c.text("ok"));
    const origin = await serve(app);
    const authorization = await bearer(newUserId());
    await fetch(`${origin}/mounted`, { headers: { authorization } });
    await fetch(`${origin}/own`, { headers: { authorization } });
    expect(seen).toEqual(["192.0.2.1", "127.0.0.1"]);
  });
});
