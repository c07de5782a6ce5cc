/**
 * What the Express adapter itself must get right, run once per Express major: bodies a parser
 * already read, the body limit, repeated headers, the guard's headers, and usage recorded under the
 * route template. The conformance suite covers everything else.
 */
import { createKeyFormat } from "@keyward/core/toolkit";
import {
  describeClientAddress,
  describeGuardOptions,
  expectRateLimited,
  mintJwt,
  PROFILE_ROUTE,
  rawRequest,
  readReply,
} from "@keyward/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keywardRouter, requireApiKey } from "../src/index.js";
import {
  demoApp,
  demoKeyward,
  type ExpressApp,
  type ExpressModule,
  jwtSecret,
  type Listening,
  listen,
} from "./demo.js";

const newUserId = () => `user_${crypto.randomUUID()}`;
const bearer = async (sub: string, tier = "free") =>
  `Bearer ${await mintJwt(jwtSecret, { sub, tier })}`;
const createBody = { name: "adapter test", scopes: ["profile:read"], tier: "free" };

export function describeExpressAdapter(name: string, expressModule: ExpressModule): void {
  describe(`${name} adapter`, () => {
    const keyward = demoKeyward();
    const servers: Listening[] = [];
    const serve = async (app: ExpressApp) => {
      const server = await listen(app);
      servers.push(server);
      return server.origin;
    };
    let plain = "";
    let jsonFirst = "";

    beforeAll(async () => {
      plain = await serve(demoApp(expressModule, keyward));
      jsonFirst = await serve(demoApp(expressModule, keyward, { parseJsonFirst: true }));
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await keyward.close();
    });

    const post = async (origin: string, body: string, authorization?: string) =>
      fetch(new URL(keyward.basePath, origin), {
        method: "POST",
        headers: {
          authorization: authorization ?? (await bearer(newUserId())),
          "content-type": "application/json",
        },
        body,
      });

    describe("a body express.json() already parsed", () => {
      it("creates a key from the parsed body", async () => {
        const reply = await post(jsonFirst, JSON.stringify(createBody));
        expect(reply.status).toBe(201);
        expect(await reply.json()).toMatchObject({
          name: "adapter test",
          scopes: ["profile:read"],
        });
      });

      it("validates the parsed body as it would the raw one (422 with every issue)", async () => {
        const reply = await post(jsonFirst, JSON.stringify({ scopes: ["nope"], tier: "free" }));
        expect(reply.status).toBe(422);
        const { detail } = (await reply.json()) as { detail: { loc: unknown[] }[] };
        expect(detail.map((issue) => issue.loc)).toEqual([
          ["body", "name"],
          ["body", "scopes", 0],
        ]);
      });

      it("still enforces Keyward's body limit (413), below body-parser's own 100 kB", async () => {
        const reply = await post(
          jsonFirst,
          JSON.stringify({ ...createBody, padding: "p".repeat(70 * 1024) }),
        );
        expect(reply.status).toBe(413);
        expect(await reply.json()).toEqual({
          detail: expect.any(String),
          code: expect.any(String),
        });
      });

      it("passes a body another parser read as text on as it was", async () => {
        const app = expressModule();
        app.use(expressModule.text({ type: "application/json" }));
        app.use(keywardRouter(keyward));
        const origin = await serve(app);
        expect((await post(origin, '{"name": "unterminated')).status).toBe(400);
        expect((await post(origin, JSON.stringify(createBody))).status).toBe(201);
      });

      it("passes a body read as bytes (express.raw) on as it was", async () => {
        const app = expressModule();
        app.use(expressModule.raw({ type: "application/json" }));
        app.use(keywardRouter(keyward));
        const origin = await serve(app);
        expect((await post(origin, JSON.stringify(createBody))).status).toBe(201);
      });

      it("leaves the host's own routes to express.json()", async () => {
        const user = newUserId();
        const reply = await fetch(new URL("/api/v1/profiles/alice", jsonFirst), {
          method: "PUT",
          headers: { authorization: await bearer(user), "content-type": "application/json" },
          body: JSON.stringify({ displayName: "Alice" }),
        });
        expect(reply.status).toBe(200);
        expect(await reply.json()).toEqual({ slug: "alice", updatedBy: user });
      });
    });

    describe("the body limit", () => {
      it("413 for a declared Content-Length over the limit", async () => {
        const reply = await post(
          plain,
          JSON.stringify({ ...createBody, padding: "p".repeat(70_000) }),
        );
        expect(reply.status).toBe(413);
        expect(await reply.json()).toEqual({
          detail: expect.any(String),
          code: expect.any(String),
        });
      });

      it("413 for a chunked body that grows past the limit, and the server keeps serving", async () => {
        const chunk = `"${"p".repeat(8 * 1024)}",`;
        const reply = await rawRequest(plain, {
          method: "POST",
          path: keyward.basePath,
          headers: { authorization: await bearer(newUserId()), "content-type": "application/json" },
          body: ["[", ...Array.from({ length: 10 }, () => chunk), '""]'],
        });
        expect(reply.status).toBe(413);
        expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
        expect((await post(plain, JSON.stringify(createBody))).status).toBe(201);
      });

      it("follows the limit configured on Keyward", async () => {
        const small = demoKeyward({ bodyLimit: 1024 });
        const app = expressModule();
        app.use(keywardRouter(small));
        const origin = await serve(app);
        const padded = JSON.stringify({ ...createBody, padding: "p".repeat(2048) });
        expect((await post(origin, padded)).status).toBe(413);
        expect((await post(origin, JSON.stringify(createBody))).status).toBe(201);
        await small.close();
      });

      it("does not read the body of a request refused before it is needed", async () => {
        const reply = await post(
          plain,
          JSON.stringify({ ...createBody, padding: "p".repeat(1e6) }),
          "Bearer nope",
        );
        expect(reply.status).toBe(401);
        expect((await post(plain, JSON.stringify(createBody))).status).toBe(201);
      });
    });

    describe("repeated headers", () => {
      it("refuses two Authorization lines on the key-management routes and on guarded routes", async () => {
        const token = await bearer(newUserId());
        for (const path of [keyward.basePath, "/api/v1/profiles/alice"]) {
          const reply = await rawRequest(plain, {
            method: "GET",
            path,
            headers: { authorization: [token, token] },
          });
          expect(reply.status, path).toBe(401);
          expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
        }
      });

      it("serves a request whose other headers repeat", async () => {
        const reply = await rawRequest(plain, {
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
      const createKey = async (ownerId: string, scopes = ["profile:read"]) =>
        keyward.keys.create({
          ownerId,
          accountTier: "free",
          name: "guarded",
          scopes,
          tier: "free",
        });

      it("puts the principal on req.keyward and the rate-limit headers on the host's response", async () => {
        const owner = newUserId();
        const key = await createKey(owner);
        const reply = await fetch(new URL("/api/v1/profiles/alice", plain), {
          headers: { authorization: `Bearer ${key.key}` },
        });
        expect(reply.status).toBe(200);
        expect(await reply.json()).toEqual({ slug: "alice", viewer: owner });
        expect(reply.headers.get("x-ratelimit-limit")).toBe("60");
        expect(reply.headers.get("x-ratelimit-remaining")).toBe("59");
        expect(reply.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
      });

      it("answers 403 for a missing scope without reaching the handler", async () => {
        const key = await createKey(newUserId(), ["profile:read"]);
        const reply = await fetch(new URL("/api/v1/profiles/alice", plain), {
          method: "PUT",
          headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
          body: "{}",
        });
        expect(reply.status).toBe(403);
        expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
        expect(Object.keys(await reply.json()).sort()).toEqual(["code", "detail"]);
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
        const app = expressModule();
        app.get("/limited/:id", requireApiKey(tight, { scopes: ["profile:read"] }), (_req, res) => {
          handled += 1;
          res.json({ ok: true });
        });
        const origin = await serve(app);
        const call = () =>
          fetch(new URL("/limited/1", origin), { headers: { authorization: `Bearer ${key.key}` } });
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
          const reply = await fetch(new URL(`/api/v1/profiles/${slug}`, plain), {
            headers: { authorization },
          });
          expect(reply.status).toBe(200);
        }
        const put = await fetch(new URL("/api/v1/profiles/carol", plain), {
          method: "PUT",
          headers: { authorization, "content-type": "application/json" },
          body: "{}",
        });
        expect(put.status).toBe(200);
        const usage = await keyward.keys.usage(owner, key.id);
        expect(usage.totalRequests).toBe(3);
        expect(usage.endpoints).toEqual(
          expect.arrayContaining([
            { method: "GET", route: PROFILE_ROUTE, count: 2 },
            { method: "PUT", route: PROFILE_ROUTE, count: 1 },
          ]),
        );
        expect(usage.endpoints).toHaveLength(2);
      });

      it("includes the mount path of a router, and falls back to baseUrl + * under app.use", async () => {
        const owner = newUserId();
        const key = await createKey(owner);
        const app = expressModule();
        const v2 = expressModule.Router();
        v2.get("/profiles/:slug", requireApiKey(keyward), (_req, res) => {
          res.json({ ok: true });
        });
        app.use("/api/v2", v2);
        app.use("/api/v3/things", requireApiKey(keyward), (_req, res) => {
          res.json({ ok: true });
        });
        app.get("/api/v4/:id", requireApiKey(keyward, { route: "/api/v4/{id}" }), (_req, res) => {
          res.json({ ok: true });
        });
        const origin = await serve(app);
        for (const path of ["/api/v2/profiles/alice", "/api/v3/things/42", "/api/v4/7"]) {
          const reply = await fetch(new URL(path, origin), {
            headers: { authorization: `Bearer ${key.key}` },
          });
          expect(reply.status, path).toBe(200);
        }
        const usage = await keyward.keys.usage(owner, key.id);
        expect(usage.endpoints.map(({ method, route }) => `${method} ${route}`).sort()).toEqual([
          "GET /api/v2/profiles/:slug",
          "GET /api/v3/things*",
          "GET /api/v4/{id}",
        ]);
      });
    });

    describe("routing", () => {
      it("passes requests outside the base path to the next handler", async () => {
        const app = expressModule();
        app.use(keywardRouter(keyward));
        app.use((req, res) => {
          res.status(418).json({ host: req.originalUrl });
        });
        const origin = await serve(app);
        for (const path of ["/", "/api/v1/api-keysX", "/api/v1"]) {
          const reply = await fetch(new URL(path, origin));
          expect(reply.status, path).toBe(418);
        }
        const ours = await fetch(new URL("/api/v1/api-keys/x/y/z", origin), {
          headers: { authorization: await bearer(newUserId()) },
        });
        expect(ours.status).toBe(404);
        expect(await ours.json()).toEqual({ detail: "Not Found", code: "route_not_found" });
      });

      it("serves the base path relative to where the router is mounted", async () => {
        const app = expressModule();
        app.use("/auth", keywardRouter(keyward));
        const origin = await serve(app);
        const reply = await fetch(new URL(`/auth${keyward.basePath}/scopes?x=1`, origin), {
          headers: { authorization: await bearer(newUserId()) },
        });
        expect(reply.status).toBe(200);
        expect(reply.headers.get("x-ratelimit-limit")).toBe("60");
      });

      it("answers a well-formed key on a key-management route with 403", async () => {
        const reply = await fetch(new URL(keyward.basePath, plain), {
          headers: { authorization: `Bearer ${createKeyFormat().generate()}` },
        });
        expect(reply.status).toBe(403);
      });
    });
  });

  // req.ip, so Express's `trust proxy` decides whether X-Forwarded-For counts.
  describeClientAddress(name, {
    serve: async (keyward, { trustLoopbackProxy }) => {
      const app = demoApp(expressModule, keyward);
      if (trustLoopbackProxy) app.set("trust proxy", "loopback");
      return listen(app);
    },
  });

  describeGuardOptions(name, {
    serve: async (keyward, guard) => {
      const app = expressModule();
      app.get("/guarded", requireApiKey(keyward, guard), (req, res) => {
        res.json({ kind: req.keyward!.principal.kind, userId: req.keyward!.principal.userId });
      });
      return listen(app);
    },
    createGuard: (keyward, guard) => requireApiKey(keyward, guard),
  });
}
