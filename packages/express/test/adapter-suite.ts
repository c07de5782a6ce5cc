/**
 * What is particular to the Express adapter, run once per Express major: bodies that express.json(),
 * express.text() or express.raw() already read, and the route template of a guard mounted on a
 * router or under `app.use`. What every Node adapter must get right (the body limit, repeated
 * headers, the guard, routing, client addresses, guard options) is `@keyward/testing`'s
 * `describeNodeAdapterConformance`; the HTTP contract is `describeHttpConformance`.
 */
import { describeNodeAdapterConformance, mintJwt } from "@keyward/testing";
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
  describeNodeAdapterConformance(name, {
    // req.ip, so Express's `trust proxy` decides whether X-Forwarded-For counts.
    serve: (keyward, host) => listen(demoApp(expressModule, keyward, host)),
    createGuard: (keyward, guard) => requireApiKey(keyward, guard),
  });

  describe(`${name} adapter`, () => {
    const keyward = demoKeyward();
    const servers: Listening[] = [];
    const serve = async (app: ExpressApp) => {
      const server = await listen(app);
      servers.push(server);
      return server.origin;
    };
    let jsonFirst = "";

    beforeAll(async () => {
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

    describe("the guard", () => {
      it("includes the mount path of a router, and falls back to baseUrl + * under app.use", async () => {
        const owner = newUserId();
        const key = await keyward.keys.create({
          ownerId: owner,
          accountTier: "free",
          name: "guarded",
          scopes: ["profile:read"],
          tier: "free",
        });
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
      });
    });
  });
}
