import { SignJWT } from "jose";
import { beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { createKeyFormat } from "../keys/format.js";
import { createKeyward, type Keyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";

const secret = "verify-test-secret-of-at-least-32-bytes";
const start = Date.parse("2026-07-01T10:00:00.000Z");
const scopes = { "profile:read": "Read", "profile:write": "Write" };
const tiers = {
  free: { rateLimit: { limit: 3, window: "1m" } },
  pro: { rateLimit: { limit: 5, window: "1m" } },
};

let clock = manualClock(start);
let store = memoryStore();
let keyward: Keyward;

beforeEach(() => {
  clock = manualClock(start);
  store = memoryStore();
  keyward = createKeyward({ store, scopes, tiers, clock, jwt: { secret } });
});

const jwt = (claims: Record<string, unknown>, sub = "alice") =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setIssuedAt(Math.floor(clock.now() / 1000))
    .setExpirationTime(Math.floor(clock.now() / 1000) + 600)
    .sign(new TextEncoder().encode(secret));

const newKey = (overrides: Partial<Parameters<Keyward["keys"]["create"]>[0]> = {}) =>
  keyward.keys.create({
    ownerId: "alice",
    accountTier: "pro",
    name: "k",
    scopes: ["profile:read"],
    tier: "free",
    ...overrides,
  });

describe("verify with an API key", () => {
  it("accepts an active key with the scope and reports the principal and limit", async () => {
    const { key, id } = await newKey();
    const result = await keyward.verify(`Bearer ${key}`, {
      scopes: ["profile:read"],
      route: "GET /p/:slug",
    });
    expect(result).toEqual({
      ok: true,
      principal: {
        kind: "key",
        userId: "alice",
        keyId: id,
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
      },
      rateLimit: {
        allowed: true,
        limit: 3,
        remaining: 2,
        reset: expect.any(Number),
        retryAfter: 0,
      },
      headers: {
        "X-RateLimit-Limit": "3",
        "X-RateLimit-Remaining": "2",
        "X-RateLimit-Reset": expect.stringMatching(/^\d+$/),
      },
    });
  });

  it.each([
    ["no header", undefined, "missing_credentials"],
    ["an empty header", "", "missing_credentials"],
    ["another scheme", "Basic YWxpY2U6cHc=", "missing_credentials"],
    ["a bearer without token", "Bearer ", "missing_credentials"],
    ["a malformed key", "Bearer sk_live_short", "invalid_api_key"],
  ])("refuses %s with 401", async (_, header, code) => {
    const result = await keyward.verify(header);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ code, status: 401 });
  });

  it("refuses a well-formed unknown key without recording anything", async () => {
    const unknown = createKeyFormat().generate();
    const result = await keyward.verify(`Bearer ${unknown}`);
    expect(!result.ok && result.error.code).toBe("invalid_api_key");
    await keyward.close();
    expect(store.snapshot().usage).toEqual({});
  });

  it("rejects every single-character change of a valid key", async () => {
    const { key } = await newKey();
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    for (let i = "sk_live_".length; i < key.length; i += 5) {
      const replacement = alphabet[(alphabet.indexOf(key[i]!) + 1) % alphabet.length];
      const changed = `${key.slice(0, i)}${replacement}${key.slice(i + 1)}`;
      const result = await keyward.verify(`Bearer ${changed}`);
      expect(!result.ok && result.error.code).toBe("invalid_api_key");
    }
  });

  it("refuses revoked, expired and rotated-away secrets with 401", async () => {
    const revoked = await newKey();
    await keyward.keys.revoke("alice", revoked.id);
    const expiring = await newKey({ expiresAt: new Date(start + 60_000) });
    const rotated = await newKey();
    const fresh = await keyward.keys.rotate("alice", rotated.id);
    clock.advance(60_000);

    const detail = async (key: string) => {
      const result = await keyward.verify(`Bearer ${key}`);
      return result.ok ? "ok" : [result.error.status, result.error.detail];
    };
    expect(await detail(revoked.key)).toEqual([401, "API key has been revoked"]);
    expect(await detail(expiring.key)).toEqual([401, "API key has expired"]);
    expect(await detail(rotated.key)).toEqual([401, "Invalid API key"]);
    expect(await detail(fresh.key)).toBe("ok");
  });

  it("refuses a key without a required scope with 403, naming the scope", async () => {
    const { key } = await newKey();
    const result = await keyward.verify(`Bearer ${key}`, {
      scopes: ["profile:read", "profile:write"],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ status: 403, code: "insufficient_scope" });
      expect(result.error.detail).toBe("API key lacks the required scope: profile:write");
    }
  });

  it("rate limits per key at the key's tier, with Retry-After on 429", async () => {
    const a = await newKey({ tier: "free" });
    const b = await newKey({ tier: "pro" });
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await keyward.verify(`Bearer ${a.key}`));
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, false]);
    const refused = outcomes[3]!;
    expect(!refused.ok && refused.error).toMatchObject({ status: 429, code: "rate_limited" });
    expect(refused.headers["Retry-After"]).toMatch(/^[1-9]\d*$/);
    expect(!refused.ok && refused.error.headers["Retry-After"]).toBe(
      refused.headers["Retry-After"],
    );
    expect(refused.headers["X-RateLimit-Remaining"]).toBe("0");
    // Another key of the same user has its own budget, at its own tier.
    const other = await keyward.verify(`Bearer ${b.key}`);
    expect(other.ok && other.rateLimit.limit).toBe(5);
    clock.advance(2 * 60_000);
    expect((await keyward.verify(`Bearer ${a.key}`)).ok).toBe(true);
  });

  it("records usage under the route template, for every request with a valid key", async () => {
    const { key, id } = await newKey();
    await keyward.verify(`Bearer ${key}`, { scopes: ["profile:read"], route: "GET /p/:slug" });
    await keyward.verify(`Bearer ${key}`, { scopes: ["profile:read"], route: "get /p/:slug" });
    await keyward.verify(`Bearer ${key}`, { scopes: ["profile:write"], route: "PUT /p/:slug" });
    const usage = await keyward.keys.usage("alice", id);
    expect(usage).toMatchObject({
      totalRequests: 3,
      lastUsedAt: "2026-07-01T10:00:00.000Z",
      endpoints: [
        { method: "GET", route: "/p/:slug", count: 2 },
        { method: "PUT", route: "/p/:slug", count: 1 },
      ],
      daily: [{ date: "2026-07-01", count: 3 }],
    });
  });

  it("never puts the token in an error", async () => {
    const { key, id } = await newKey();
    await keyward.keys.revoke("alice", id);
    const result = await keyward.verify(`Bearer ${key}`);
    const text = JSON.stringify(result, (_, value) =>
      value instanceof Error ? { ...value, message: value.message } : value,
    );
    expect(text).not.toContain(key.slice(8));
  });

  it("answers 500 when storage fails, without throwing", async () => {
    const { key } = await newKey();
    const failing = createKeyward({
      store: {
        ...store,
        keys: { ...store.keys, findByHash: async () => Promise.reject(new Error("down")) },
      },
      scopes,
      tiers,
    });
    const result = await failing.verify(`Bearer ${key}`);
    expect(!result.ok && result.error).toMatchObject({
      status: 500,
      detail: "Internal server error",
    });
  });
});

describe("verify with a JWT", () => {
  it("acts as the user with every scope, limited per user at the account tier", async () => {
    const token = await jwt({ tier: "pro" });
    const result = await keyward.verify(`Bearer ${token}`, { scopes: ["profile:write"] });
    expect(result.ok && result.principal).toMatchObject({
      kind: "user",
      userId: "alice",
      tier: "pro",
    });
    expect(result.ok && result.rateLimit.limit).toBe(5);
    for (let i = 0; i < 4; i++) await keyward.verify(`Bearer ${token}`);
    const refused = await keyward.verify(`Bearer ${token}`);
    expect(!refused.ok && refused.error.status).toBe(429);
    // Another user is not affected.
    expect((await keyward.verify(`Bearer ${await jwt({ tier: "pro" }, "bob")}`)).ok).toBe(true);
  });

  it("treats a missing or unknown tier claim as the lowest tier", async () => {
    for (const claims of [{}, { tier: "platinum" }, { tier: 7 }]) {
      const result = await keyward.verify(`Bearer ${await jwt(claims, `u${Math.random()}`)}`);
      expect(result.ok && result.principal.tier).toBe("free");
    }
  });

  it("uses accountTier(claims) when configured", async () => {
    const custom = createKeyward({
      store,
      scopes,
      tiers,
      clock,
      jwt: { secret },
      accountTier: (claims) => (claims as { plan?: string }).plan,
    });
    const result = await custom.verify(`Bearer ${await jwt({ plan: "pro" })}`);
    expect(result.ok && result.principal.tier).toBe("pro");
  });

  it("refuses a JWT with 401 when none is configured", async () => {
    const noJwt = createKeyward({ store, scopes, tiers, clock });
    const result = await noJwt.verify(`Bearer ${await jwt({})}`);
    expect(!result.ok && result.error.status).toBe(401);
  });

  it("puts the WWW-Authenticate challenge in a refusal's headers, for guards that copy them", async () => {
    const challenge = async (authorization: string | undefined) => {
      const result = await keyward.verify(authorization, { scopes: ["profile:write"] });
      return result.ok ? "ok" : result.headers["WWW-Authenticate"];
    };
    const { key } = await newKey();
    expect(await challenge(undefined)).toBe("Bearer");
    expect(await challenge("Basic YWxpY2U6cHc=")).toBe("Bearer");
    expect(await challenge("Bearer not.a.jwt")).toBe(
      'Bearer error="invalid_token", error_description="Token is malformed"',
    );
    expect(await challenge(`Bearer ${createKeyFormat().generate()}`)).toBe(
      'Bearer error="invalid_token", error_description="Invalid API key"',
    );
    // A 403 is not an authentication failure: no challenge.
    expect(await challenge(`Bearer ${key}`)).toBeUndefined();
  });

  it("refuses a bad JWT with 401", async () => {
    const other = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .sign(new TextEncoder().encode("another-secret-that-is-32-bytes-long"));
    const result = await keyward.verify(`Bearer ${other}`);
    expect(!result.ok && result.error).toMatchObject({ status: 401, code: "invalid_token" });
  });
});

describe("authenticate", () => {
  it("reads the header from a Request and prefixes the request's method to a bare route", async () => {
    const { key, id } = await newKey();
    const request = new Request("http://host/p/alice", {
      method: "DELETE",
      headers: { authorization: `Bearer ${key}` },
    });
    expect((await keyward.authenticate(request, { route: "/p/:slug" })).ok).toBe(true);
    const usage = await keyward.keys.usage("alice", id);
    expect(usage.endpoints).toEqual([{ method: "DELETE", route: "/p/:slug", count: 1 }]);
  });

  it("counts a method outside the standard ones as OTHER, so requests cannot add usage rows", async () => {
    const { key, id } = await newKey({ tier: "pro" });
    for (const method of ["patch", "PROPFIND", "X".repeat(5_000), "BREW"]) {
      const request = new Request("http://host/p/alice", {
        method,
        headers: { authorization: `Bearer ${key}` },
      });
      expect((await keyward.authenticate(request, { route: "/p/:slug" })).ok).toBe(true);
    }
    const usage = await keyward.keys.usage("alice", id);
    expect(usage.endpoints).toEqual(
      expect.arrayContaining([
        { method: "PATCH", route: "/p/:slug", count: 1 },
        { method: "OTHER", route: "/p/:slug", count: 3 },
      ]),
    );
    expect(usage.endpoints).toHaveLength(2);
  });
});
