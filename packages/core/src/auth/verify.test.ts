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
        owner: { type: "user", id: "alice" },
        createdBy: "alice",
        metadata: null,
        environment: "live",
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
        // No `peek` either: a store that can answer from memory has not failed.
        keys: {
          ...store.keys,
          peek: undefined,
          findByHash: async () => Promise.reject(new Error("down")),
        },
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

describe("verify: what a valid key costs, whatever the outcome (issue 9)", () => {
  it("rate limits requests refused for a missing scope like any other", async () => {
    const { key } = await newKey({ tier: "free" }); // 3 a minute
    const denied = [];
    for (let i = 0; i < 4; i++) {
      denied.push(await keyward.verify(`Bearer ${key}`, { scopes: ["profile:write"] }));
    }
    expect(denied.map((result) => !result.ok && result.error.status)).toEqual([403, 403, 403, 429]);
    // The 403s carry where the key stands, and the allowance they used is gone for allowed routes.
    expect(denied[2]!.headers["X-RateLimit-Remaining"]).toBe("0");
    const allowed = await keyward.verify(`Bearer ${key}`, { scopes: ["profile:read"] });
    expect(!allowed.ok && allowed.error.status).toBe(429);
  });

  it("counts no usage for a request the rate-limit store failed on (a 500)", async () => {
    const { key, id } = await newKey();
    const failing = createKeyward({
      store: {
        ...store,
        rateLimits: { consume: () => Promise.reject(new Error("rate-limit store down")) },
      },
      scopes,
      tiers,
      clock,
    });
    const result = await failing.verify(`Bearer ${key}`, { route: "GET /p/:slug" });
    expect(!result.ok && result.error.status).toBe(500);
    await failing.close();
    expect((await keyward.keys.usage("alice", id)).totalRequests).toBe(0);
  });
});

describe("verify: a key never runs above its owner's current tier (issue 9)", () => {
  const session = (tier: string) => jwt({ tier });
  const limitOf = async (key: string) => {
    const result = await keyward.verify(`Bearer ${key}`);
    if (!result.ok) throw result.error;
    return [result.principal.tier, result.rateLimit.limit];
  };

  it("caps a pro key at free once a session shows the account was downgraded", async () => {
    const { key } = await newKey({ tier: "pro", accountTier: "pro" });
    expect(await limitOf(key)).toEqual(["pro", 5]);
    // Any key-management call with the downgraded session records the account's new tier.
    const listed = await keyward.handle(
      new Request("http://host/api/v1/api-keys", {
        headers: { authorization: `Bearer ${await session("free")}` },
      }),
    );
    expect(listed.status).toBe(200);
    expect(await limitOf(key)).toEqual(["free", 3]);
    // An upgrade lifts the key back to its own tier, never above it.
    await keyward.keys.setAccountTier("alice", "pro");
    expect(await limitOf(key)).toEqual(["pro", 5]);
  });

  it("follows a session on a host route too, without holding up the request", async () => {
    const { key } = await newKey({ tier: "pro", accountTier: "pro" });
    const hostRoute = await keyward.verify(`Bearer ${await session("free")}`);
    expect(hostRoute.ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0)); // the background write
    expect(await limitOf(key)).toEqual(["free", 3]);
  });

  it("refuses to rotate a key above the session's tier, and lets the owner at that tier rotate", async () => {
    const { id } = await newKey({ tier: "pro", accountTier: "pro" });
    const rotate = async (tier: string) =>
      keyward.handle(
        new Request(`http://host/api/v1/api-keys/${id}/rotate`, {
          method: "POST",
          headers: { authorization: `Bearer ${await session(tier)}` },
        }),
      );
    const refused = await rotate("free");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      code: "tier_not_allowed",
      detail: "Tier 'pro' is above the account's tier 'free'",
    });
    expect((await rotate("pro")).status).toBe(200);
    await expect(keyward.keys.rotate("alice", id, { accountTier: "free" })).rejects.toMatchObject({
      status: 403,
      code: "tier_not_allowed",
    });
  });

  it("reaches another instance through the cache's invalidation, like a revocation", async () => {
    const { cachedKeyStore } = await import("../cache/cached-key-store.js");
    const { memoryInvalidationChannel } = await import("../cache/invalidation-channel.js");
    const channel = memoryInvalidationChannel();
    const first = createKeyward({
      store: { ...store, keys: cachedKeyStore(store.keys, { channel, clock }) },
      scopes,
      tiers,
      clock,
      jwt: { secret },
    });
    const secondKeys = cachedKeyStore(store.keys, { channel, clock });
    const second = createKeyward({ store: { ...store, keys: secondKeys }, scopes, tiers, clock });
    await secondKeys.ready;
    const { key } = await first.keys.create({
      ownerId: "alice",
      accountTier: "pro",
      name: "k",
      scopes: ["profile:read"],
      tier: "pro",
    });
    const onSecond = async () => {
      const result = await second.verify(`Bearer ${key}`);
      return result.ok && result.principal.tier;
    };
    expect(await onSecond()).toBe("pro"); // now cached on the second instance
    await first.keys.setAccountTier("alice", "free");
    expect(await onSecond()).toBe("free");
  });

  it("runs a key whose tier is no longer configured at the lowest tier, not a 500", async () => {
    const legacy = createKeyward({
      store,
      scopes,
      tiers: { ...tiers, legacy: { rateLimit: { limit: 9, window: "1m" } } },
      clock,
    });
    const { key, id } = await legacy.keys.create({
      ownerId: "alice",
      accountTier: "legacy",
      name: "k",
      scopes: ["profile:read"],
      tier: "legacy",
    });
    expect(await limitOf(key)).toEqual(["free", 3]);
    // Still listed as it was created, and its owner may rotate it at any tier.
    expect((await keyward.keys.list("alice"))[0]).toMatchObject({ id, tier: "legacy" });
    await expect(keyward.keys.rotate("alice", id, { accountTier: "free" })).resolves.toMatchObject({
      id,
    });
  });

  it("refuses an unknown tier in setAccountTier, naming the configured ones", async () => {
    await expect(keyward.keys.setAccountTier("alice", "gold")).rejects.toThrow(
      'Keyward: unknown tier "gold"; configured tiers: free, pro',
    );
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
