/**
 * What the Fetch adapter adds to core: answering only its own routes, and the guard's headers on
 * whatever the host returns. Served by srvx over real HTTP where the wire matters.
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
import { type Server, serve } from "srvx";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { keywardFetchHandler, withApiKey } from "../src/index.js";
import { demoHost, demoKeyward, jwtSecret } from "./demo.js";

const keyward = demoKeyward();
const origin = "http://host.test";
let server: Server;

beforeAll(async () => {
  server = serve({ fetch: demoHost(keyward), port: 0, hostname: "127.0.0.1", silent: true });
  await server.ready();
});
afterAll(async () => {
  await server.close(true);
  await keyward.close();
});

const newUserId = () => `user_${crypto.randomUUID()}`;
const bearer = async (sub: string, tier = "free") =>
  `Bearer ${await mintJwt(jwtSecret, { sub, tier })}`;

describe("keywardFetchHandler", () => {
  const handler = keywardFetchHandler(keyward);

  it.each(["/", "/api/v1/profiles/alice", "/api/v1/api-keysX", "/api/v1"])(
    "answers null for %s, outside the base path",
    async (path) => {
      expect(await handler(new Request(`${origin}${path}`))).toBeNull();
    },
  );

  it.each(["/api/v1/api-keys", "/api/v1/api-keys/", "/api/v1/api-keys/x/y/z"])(
    "answers %s, under the base path, with a contract body",
    async (path) => {
      const response = await handler(new Request(`${origin}${path}`));
      expect(response).not.toBeNull();
      expect([401, 404]).toContain(response!.status);
      expect(Object.keys(await response!.json()).sort()).toEqual(["code", "detail"]);
    },
  );

  it("follows a custom base path", async () => {
    const custom = demoKeyward({ http: { basePath: "/keys/" } });
    const customHandler = keywardFetchHandler(custom);
    expect(await customHandler(new Request(`${origin}/api/v1/api-keys`))).toBeNull();
    const response = await customHandler(
      new Request(`${origin}/keys/scopes`, {
        headers: { authorization: await bearer(newUserId()) },
      }),
    );
    expect(response!.status).toBe(200);
    await custom.close();
  });
});

describe("withApiKey", () => {
  const createKey = async (ownerId: string, scopes = ["profile:read"]) =>
    keyward.keys.create({ ownerId, accountTier: "free", name: "test", scopes, tier: "free" });

  it("runs the handler with the principal and adds the rate-limit headers to its response", async () => {
    const owner = newUserId();
    const key = await createKey(owner);
    const handler = vi.fn(() => new Response("ok", { status: 202, headers: { "x-host": "kept" } }));
    const guarded = withApiKey(
      keyward,
      { scopes: ["profile:read"], route: PROFILE_ROUTE },
      handler,
    );
    const response = await guarded(
      new Request(`${origin}/api/v1/profiles/alice`, {
        headers: { authorization: `Bearer ${key.key}` },
      }),
    );
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("ok");
    expect(response.headers.get("x-host")).toBe("kept");
    expect(response.headers.get("x-ratelimit-limit")).toBe("60");
    expect(response.headers.get("x-ratelimit-remaining")).toBe("59");
    expect(response.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
    expect(handler).toHaveBeenCalledOnce();
    const [, principal, rateLimit] = handler.mock.calls[0] as unknown as [
      Request,
      { kind: string; userId: string; keyId: string },
      { remaining: number },
    ];
    expect(principal).toMatchObject({ kind: "key", userId: owner, keyId: key.id });
    expect(rateLimit.remaining).toBe(59);
  });

  it("hands clientIp what the server passes after the request (Bun's server, Deno's info)", async () => {
    const seen: (string | undefined)[] = [];
    const recording = {
      ...keyward,
      authenticate: (request: Request, options?: Parameters<typeof keyward.authenticate>[1]) => {
        seen.push(options?.clientIp);
        return keyward.authenticate(request, options);
      },
    };
    type DenoInfo = { remoteAddr: { hostname: string } };
    const denoStyle = withApiKey(
      recording,
      { route: "/go", clientIp: (_request, info: DenoInfo) => info.remoteAddr.hostname },
      () => new Response("ok"),
    );
    await denoStyle(new Request(`${origin}/go`), { remoteAddr: { hostname: "192.0.2.5" } });
    const withoutOption = withApiKey(recording, { route: "/go" }, () => new Response("ok"));
    await withoutOption(
      new Request(`${origin}/go`, { headers: { "x-forwarded-for": "192.0.2.6" } }),
    );
    // Without the option there is no address: a Request has none, and a header is not one.
    expect(seen).toEqual(["192.0.2.5", undefined]);
  });

  it("copies a response whose headers are immutable before adding the headers", async () => {
    const guarded = withApiKey(keyward, { route: "/go" }, () =>
      Response.redirect("https://example.com/elsewhere", 302),
    );
    const response = await guarded(
      new Request(`${origin}/go`, { headers: { authorization: await bearer(newUserId()) } }),
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("https://example.com/elsewhere");
    expect(response.headers.get("x-ratelimit-limit")).toBe("60");
  });

  it("refuses without running the handler: 401, 403 as contract bodies", async () => {
    const handler = vi.fn(() => new Response("never"));
    const guarded = withApiKey(
      keyward,
      { scopes: ["profile:write"], route: PROFILE_ROUTE },
      handler,
    );
    const missing = await guarded(new Request(`${origin}/api/v1/profiles/alice`));
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ detail: expect.any(String), code: expect.any(String) });

    const key = await createKey(newUserId(), ["profile:read"]);
    const lacking = await guarded(
      new Request(`${origin}/api/v1/profiles/alice`, {
        method: "PUT",
        headers: { authorization: `Bearer ${key.key}` },
      }),
    );
    expect(lacking.status).toBe(403);
    expect(lacking.headers.get("content-type")).toMatch(/^application\/json/);
    expect(handler).not.toHaveBeenCalled();
  });

  it("answers 429 with Retry-After and the rate-limit headers once the key's allowance is spent", async () => {
    const tight = demoKeyward({
      tiers: { free: { rateLimit: { limit: 2, window: "1m" } } },
    });
    const key = await tight.keys.create({
      ownerId: newUserId(),
      accountTier: "free",
      name: "tight",
      scopes: ["profile:read"],
      tier: "free",
    });
    const handler = vi.fn(() => Response.json({ ok: true }));
    const guarded = withApiKey(tight, { scopes: ["profile:read"], route: PROFILE_ROUTE }, handler);
    const call = () =>
      guarded(
        new Request(`${origin}/api/v1/profiles/alice`, {
          headers: { authorization: `Bearer ${key.key}` },
        }),
      );
    expect((await call()).status).toBe(200);
    expect((await call()).headers.get("x-ratelimit-remaining")).toBe("0");
    // 429 with {detail}, Retry-After ≥ 1 s and the X-RateLimit-* headers at 0 remaining.
    expectRateLimited(await readReply(await call()), 2);
    expect(handler).toHaveBeenCalledTimes(2);
    await tight.close();
  });

  it("records usage under the route template, never the raw path", async () => {
    const owner = newUserId();
    const key = await createKey(owner);
    for (const slug of ["alice", "bob"]) {
      const reply = await fetch(new URL(`/api/v1/profiles/${slug}`, server.url), {
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(reply.status).toBe(200);
      expect(await reply.json()).toEqual({ slug, viewer: owner });
    }
    const usage = await keyward.keys.usage(owner, key.id);
    expect(usage.totalRequests).toBe(2);
    expect(usage.endpoints).toEqual([{ method: "GET", route: PROFILE_ROUTE, count: 2 }]);
  });

  it("refuses an Authorization header repeated on the wire, rather than picking one", async () => {
    const user = await bearer(newUserId());
    const reply = await rawRequest(server.url!, {
      method: "GET",
      path: "/api/v1/profiles/alice",
      headers: { authorization: [user, user] },
    });
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });
});

describe("request bodies over real HTTP", () => {
  it("413 with the contract body for a chunked body over the limit (no Content-Length)", async () => {
    const chunk = `"${"p".repeat(8 * 1024)}",`;
    const reply = await rawRequest(server.url!, {
      method: "POST",
      path: "/api/v1/api-keys",
      headers: { authorization: await bearer(newUserId()), "content-type": "application/json" },
      body: ["[", ...Array.from({ length: 10 }, () => chunk), '""]'],
    });
    expect(reply.status).toBe(413);
    expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });
});

// srvx's request.ip, so srvx's `trustProxy` decides whether X-Forwarded-For counts.
describeClientAddress("Fetch on srvx", {
  serve: async (keyward, { trustLoopbackProxy }) => {
    const server = serve({
      fetch: demoHost(keyward),
      port: 0,
      hostname: "127.0.0.1",
      silent: true,
      ...(trustLoopbackProxy ? { trustProxy: "loopback" as const } : {}),
    });
    await server.ready();
    return { origin: server.url!, close: () => server.close(true) };
  },
});

describeGuardOptions("Fetch on srvx", {
  serve: async (keyward, guard) => {
    const guarded = withApiKey(keyward, { ...guard, route: "/guarded" }, (_, principal) =>
      Response.json({ kind: principal.kind, userId: principal.userId }),
    );
    const server = serve({ fetch: guarded, port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    return { origin: server.url!.replace(/\/$/, ""), close: () => server.close(true) };
  },
  createGuard: (keyward, guard) =>
    withApiKey(keyward, { ...guard, route: "/guarded" }, () => new Response()),
});
