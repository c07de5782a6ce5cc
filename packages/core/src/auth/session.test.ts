/**
 * The host's own session (the `session` option) on the six endpoints and on host routes, the
 * cross-site guard for cookie-authenticated calls, and routes that say which credentials they take.
 */
import { SignJWT } from "jose";
import { describe, expect, it, vi } from "vitest";
import type { KeywardConfig } from "../keyward/config.js";
import { createKeyward } from "../keyward/create-keyward.js";
import type { KeywardLogger } from "../logging/logger.js";
import { memoryStore } from "../memory/memory-store.js";

const secret = "session-test-secret-of-at-least-32-bytes";
const origin = "https://api.example.com";
const base = "https://api.example.com/api/v1/api-keys";

/** A stand-in for the host's session system: a cookie naming the user. */
const cookieSession: KeywardConfig["session"] = (request) => {
  const match = /(?:^|;\s*)sid=([a-z]+)/.exec(request.headers.get("cookie") ?? "");
  return match ? { userId: match[1]!, tier: "pro", claims: { via: "cookie" } } : null;
};

function setup(overrides: Partial<KeywardConfig> = {}) {
  return createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read profiles" },
    tiers: {
      free: { rateLimit: { limit: 50, window: "1m" } },
      pro: { rateLimit: { limit: 100, window: "1m" } },
    },
    jwt: { secret },
    session: cookieSession,
    http: { trustedOrigins: ["https://app.example.com"] },
    logger: false,
    ...overrides,
  });
}

const create = (headers: Record<string, string>) =>
  new Request(base, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ name: "cookie key", scopes: ["profile:read"], tier: "pro" }),
  });

describe("the session option on the six endpoints", () => {
  it("lets a signed-in user manage keys with the host's cookie, at the session's tier", async () => {
    const keyward = setup();
    const created = await keyward.handle(create({ cookie: "sid=alice", origin }));
    expect(created.status).toBe(201);
    expect(created.headers.get("X-RateLimit-Limit")).toBe("100");
    const listed = await keyward.handle(new Request(base, { headers: { cookie: "sid=alice" } }));
    expect(((await listed.json()) as { data: unknown[] }).data).toHaveLength(1);
    expect(await keyward.keys.list("alice")).toHaveLength(1);
  });

  it("answers 401 when nobody is signed in, and keeps bearer tokens working beside it", async () => {
    const keyward = setup();
    expect((await keyward.handle(new Request(base))).status).toBe(401);
    const token = await new SignJWT({ tier: "free" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("bob")
      .sign(new TextEncoder().encode(secret));
    const listed = await keyward.handle(
      new Request(base, { headers: { authorization: `Bearer ${token}`, cookie: "sid=alice" } }),
    );
    expect(listed.status).toBe(200);
    // The bearer token decides, not the cookie: bob's limit, bob's keys.
    expect(listed.headers.get("X-RateLimit-Limit")).toBe("50");
  });

  it("refuses a cookie-authenticated write from another site, changing nothing", async () => {
    const keyward = setup();
    for (const headers of <Record<string, string>[]>[
      { cookie: "sid=alice", origin: "https://evil.example" },
      { cookie: "sid=alice", "sec-fetch-site": "cross-site" },
    ]) {
      const refused = await keyward.handle(create(headers));
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({
        detail: "Cross-site request refused: this origin is not trusted for key management",
      });
    }
    expect(await keyward.keys.list("alice")).toEqual([]);
    // The host's own origin, a trusted one, and a non-browser client without Origin are accepted.
    for (const headers of <Record<string, string>[]>[
      { cookie: "sid=alice", origin },
      { cookie: "sid=alice", origin: "https://app.example.com" },
      { cookie: "sid=alice" },
    ]) {
      expect((await keyward.handle(create(headers))).status).toBe(201);
    }
  });

  it("answers 500, logged, when the session hook throws", async () => {
    const error = vi.fn();
    const logger: KeywardLogger = { error, warn() {} };
    const keyward = setup({
      session: () => {
        throw new Error("session store down");
      },
      logger,
    });
    const response = await keyward.handle(new Request(base, { headers: { cookie: "sid=alice" } }));
    expect(response.status).toBe(500);
    expect(error).toHaveBeenCalledWith("verifying a request failed (500)", expect.any(Error));
  });

  it("refuses a hook that returns something without a user id", async () => {
    const keyward = setup({ session: () => ({ id: "alice" }) as never });
    expect((await keyward.handle(new Request(base, { headers: { cookie: "x" } }))).status).toBe(
      500,
    );
  });
});

describe("routes that say which credentials they take", () => {
  async function keyAndToken() {
    const keyward = setup();
    const { key } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "pro",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .sign(new TextEncoder().encode(secret));
    return { keyward, key, token };
  }
  const route = "GET /profiles/:slug";

  it("accepts both by default, as the contract says", async () => {
    const { keyward, key, token } = await keyAndToken();
    expect((await keyward.verify(`Bearer ${key}`, { route })).ok).toBe(true);
    expect((await keyward.verify(`Bearer ${token}`, { route })).ok).toBe(true);
  });

  it('refuses a session token with 401 on accept: "api-key"', async () => {
    const { keyward, key, token } = await keyAndToken();
    expect((await keyward.verify(`Bearer ${key}`, { route, accept: "api-key" })).ok).toBe(true);
    const refused = await keyward.verify(`Bearer ${token}`, { route, accept: "api-key" });
    expect(!refused.ok && refused.error).toMatchObject({
      status: 401,
      code: "api_key_required",
      detail: "This route requires an API key",
    });
    // A cookie session is not asked either.
    const request = new Request("https://api.example.com/p", { headers: { cookie: "sid=alice" } });
    const cookie = await keyward.authenticate(request, { route, accept: "api-key" });
    expect(!cookie.ok && cookie.error.status).toBe(401);
  });

  it('refuses an API key with 403 on accept: "session", and takes the cookie session', async () => {
    const { keyward, key, token } = await keyAndToken();
    const refused = await keyward.verify(`Bearer ${key}`, { route, accept: "session" });
    expect(!refused.ok && refused.error).toMatchObject({
      status: 403,
      code: "api_key_not_allowed",
    });
    expect((await keyward.verify(`Bearer ${token}`, { route, accept: "session" })).ok).toBe(true);
    const request = new Request("https://api.example.com/p", { headers: { cookie: "sid=alice" } });
    const viaCookie = await keyward.authenticate(request, { route: "/p", accept: "session" });
    expect(viaCookie.ok && viaCookie.principal).toMatchObject({
      kind: "user",
      userId: "alice",
      tier: "pro",
      claims: { sub: "alice", via: "cookie" },
    });
  });
});
