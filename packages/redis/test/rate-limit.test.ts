/**
 * The Redis rate-limit store beyond the conformance suite: Redis's clock, one round trip for rate
 * limit and usage, key expiry, policy changes, and the NOSCRIPT fallback.
 */
import { createKeyward, type RateLimitPolicy } from "@keyward/core";
import { memoryKeyStore, memoryUsageStore } from "@keyward/core/toolkit";
import IORedis from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { localRedis, nodeRedisOptions, redisAvailable, testPrefix } from "./support/local-redis.js";
import { startRedisServer } from "./support/redis-servers.js";
import { deletePrefix } from "./support/scan.js";

const scopes = { "profile:read": "Read profiles" };

/** Counts the script calls a client is asked to make. */
function counting<T extends object>(client: T): { client: T; calls: () => number } {
  let calls = 0;
  const methods = new Set(["evalsha", "eval", "evalSha"]);
  const proxy = new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property === "string" && methods.has(property) && typeof value === "function") {
        return (...args: unknown[]) => {
          calls += 1;
          return value.apply(target, args);
        };
      }
      return value;
    },
  });
  return { client: proxy, calls: () => calls };
}

describe.skipIf(!redisAvailable)("redisStore rate limits", () => {
  let client: IORedis;
  const prefix = testPrefix("rate-limit");

  beforeAll(() => {
    client = new IORedis(localRedis);
  });
  afterAll(async () => {
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  it("decides on Redis's clock: callers hours apart share one limit", async () => {
    const { rateLimits } = redisStore({ client, prefix });
    const policy: RateLimitPolicy = { algorithm: "fixed-window", limit: 5, windowMs: 3_600_000 };
    const skews = [-7_200_000, 0, 5_400_000, -60_000, 3_600_000, 1, -1, 86_400_000];
    const decisions = [];
    for (const skew of skews)
      decisions.push(await rateLimits.consume("skewed", policy, Date.now() + skew));
    expect(decisions.map((d) => d.allowed)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
    // `reset` is on Redis's clock: the end of the current real hour, whatever the callers said.
    const hourEnd = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
    expect([hourEnd - 3_600_000, hourEnd]).toContain(decisions[0]!.reset);
    expect(new Set(decisions.map((d) => d.reset)).size).toBe(1);
  });

  it.each(["ioredis", "node-redis"] as const)(
    "limits and counts usage in one script call per verified request (%s)",
    async (driver) => {
      const raw =
        driver === "ioredis"
          ? new IORedis(localRedis)
          : await createClient(nodeRedisOptions).connect();
      const { client: wrapped, calls } = counting(raw);
      const redis = redisStore({ client: wrapped, prefix });
      const keyward = createKeyward({
        store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
        scopes,
        tiers: { free: { rateLimit: { limit: 4, window: "1h" } } },
      });
      const { id, key } = await keyward.keys.create({
        ownerId: "u1",
        accountTier: "free",
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
      });
      const before = calls();
      const statuses = [];
      for (let i = 0; i < 6; i++) {
        const result = await keyward.verify(`Bearer ${key}`, {
          scopes: ["profile:read"],
          route: i % 2 ? "PUT /profiles/:slug" : "GET /profiles/:slug",
        });
        statuses.push(result.ok ? 200 : result.error.status);
        if (result.ok) expect(result.rateLimit.remaining).toBe(3 - i);
      }
      expect(calls() - before).toBe(6);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);

      // Refused requests count too: every request made with a valid key is usage.
      const usage = await keyward.keys.usage("u1", id);
      const today = new Date().toISOString().slice(0, 10);
      expect(usage).toMatchObject({
        keyId: id,
        totalRequests: 6,
        endpoints: [
          { method: "GET", route: "/profiles/:slug", count: 3 },
          { method: "PUT", route: "/profiles/:slug", count: 3 },
        ],
        daily: [{ date: today, count: 6 }],
      });
      expect(Math.abs(Date.parse(usage.lastUsedAt!) - Date.now())).toBeLessThan(5_000);
      expect((await keyward.keys.list("u1"))[0]!.lastUsedAt).toBe(usage.lastUsedAt);
      await keyward.close();
      if (raw instanceof IORedis) raw.disconnect();
      else await raw.close();
    },
  );

  it("counts one key's requests on several routes when they share a script call", async () => {
    // Requests of one tick share a call; one key's requests on two routes count in three fields
    // (two endpoints, one day), which the script reads and writes back with its state.
    const raw = new IORedis(localRedis);
    const { client: wrapped, calls } = counting(raw);
    const redis = redisStore({ client: wrapped, prefix });
    const keyward = createKeyward({
      store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
      scopes,
      tiers: { free: { rateLimit: { limit: 100, window: "1h" } } },
    });
    const { id, key } = await keyward.keys.create({
      ownerId: "u-routes",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    const verifyOn = (route: string) =>
      keyward.verify(`Bearer ${key}`, { scopes: ["profile:read"], route });
    const before = calls();
    const first = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => verifyOn(i % 2 ? "PUT /p" : "GET /p")),
    );
    expect(calls() - before).toBe(1);
    expect(first.map((result) => result.ok && result.rateLimit.remaining)).toEqual([
      99, 98, 97, 96, 95,
    ]);
    // A second call starts from what the first wrote, on every field.
    await Promise.all([verifyOn("GET /p"), verifyOn("DELETE /p")]);
    const usage = await keyward.keys.usage("u-routes", id);
    expect(usage).toMatchObject({
      totalRequests: 7,
      endpoints: [
        { method: "GET", route: "/p", count: 4 },
        { method: "PUT", route: "/p", count: 2 },
        { method: "DELETE", route: "/p", count: 1 },
      ],
      daily: [{ date: new Date().toISOString().slice(0, 10), count: 7 }],
    });
    await keyward.close();
    raw.disconnect();
  });

  it("leaves usage to Keyward's recorder with recordsUsage: false", async () => {
    const redis = redisStore({ client, prefix, recordsUsage: false });
    expect(redis.rateLimits.recordsUsage).toBe(false);
    const usage = memoryUsageStore();
    const keyward = createKeyward({
      store: { keys: memoryKeyStore(), usage, rateLimits: redis.rateLimits },
      scopes,
      tiers: { free: { rateLimit: { limit: 10, window: "1h" } } },
    });
    const { id, key } = await keyward.keys.create({
      ownerId: "u2",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    for (let i = 0; i < 3; i++) expect((await keyward.verify(`Bearer ${key}`)).ok).toBe(true);
    await keyward.close();
    expect((await usage.read(id)).totalRequests).toBe(3);
    expect((await redis.usage.read(id)).totalRequests).toBe(0);
  });

  it("expires state once it can no longer matter", async () => {
    const { rateLimits } = redisStore({ client, prefix });
    const windows = {
      "fixed-window": 1, // until the window ends
      "sliding-window": 2, // the count weighs on the next window too
      "token-bucket": 1, // until the bucket is full again
      gcra: 1, // until the TAT
    } as const;
    for (const [algorithm, windowsHeld] of Object.entries(windows)) {
      const policy = { algorithm, limit: 10, windowMs: 60_000 } as RateLimitPolicy;
      const bucket = `expiry:${algorithm}`;
      await rateLimits.consume(bucket, policy, Date.now());
      const ttl = await client.pttl(`${prefix}rl:{${bucket}}`);
      expect(ttl, algorithm).toBeGreaterThan(0);
      expect(ttl, algorithm).toBeLessThanOrEqual(windowsHeld * 60_000);
    }
    // One request of ten in a token bucket: full again after a tenth of the window.
    expect(await client.pttl(`${prefix}rl:{expiry:token-bucket}`)).toBeLessThanOrEqual(6_000);
  });

  it("keeps an API key's state in its usage hash, and anything else's in a key that expires", async () => {
    const { rateLimits } = redisStore({ client, prefix });
    const policy: RateLimitPolicy = { algorithm: "gcra", limit: 5, windowMs: 60_000 };
    const hit = { keyId: "k-state", method: "GET", route: "/", day: "2026-03-01" };
    await rateLimits.consume("key:k-state", policy, Date.now(), hit);
    await rateLimits.consume("user:u-state", policy, Date.now());
    const usageHash = await client.hgetall(`${prefix}usage:{key:k-state}`);
    expect(usageHash.rp).toBe("gcra:5:60000");
    expect(usageHash.rl).toMatch(/^\d+:\d+:\d+$/); // expiresAt, then GCRA's [tat, fraction]
    expect(await client.exists(`${prefix}rl:{key:k-state}`)).toBe(0);
    expect(await client.pttl(`${prefix}rl:{user:u-state}`)).toBeGreaterThan(0);
  });

  it("starts afresh when a principal's policy changes", async () => {
    const { rateLimits } = redisStore({ client, prefix });
    const free: RateLimitPolicy = { algorithm: "fixed-window", limit: 1, windowMs: 60_000 };
    const pro: RateLimitPolicy = { algorithm: "token-bucket", limit: 5, windowMs: 60_000 };
    await rateLimits.consume("upgrade", free, Date.now());
    expect((await rateLimits.consume("upgrade", free, Date.now())).allowed).toBe(false);
    expect(await rateLimits.consume("upgrade", pro, Date.now())).toMatchObject({
      allowed: true,
      remaining: 4,
    });
  });

  it("counts a user's (JWT) request against its own bucket, and usage under another, apart", async () => {
    const redis = redisStore({ client, prefix });
    const policy: RateLimitPolicy = { algorithm: "gcra", limit: 2, windowMs: 60_000 };
    const hit = { keyId: "other-key", method: "GET", route: "/x", day: "2026-03-01" };
    const decision = await redis.rateLimits.consume("user:someone", policy, 1_000, hit);
    expect(decision.allowed).toBe(true);
    await expect.poll(async () => (await redis.usage.read("other-key")).totalRequests).toBe(1);
  });

  it("rejects an unknown algorithm without calling Redis or failing open", async () => {
    const { rateLimits } = redisStore({ client, prefix, onStoreError: "fail-open" });
    const bad = { algorithm: "leaky", limit: 1, windowMs: 1 } as unknown as RateLimitPolicy;
    await expect(rateLimits.consume("bad", bad, Date.now())).rejects.toThrow(TypeError);
  });

  it("reloads its scripts when the server has forgotten them (NOSCRIPT)", async () => {
    const server = await startRedisServer();
    const own = new IORedis({ host: "127.0.0.1", port: server.port });
    try {
      const { rateLimits, usage } = redisStore({ client: own, prefix });
      const policy: RateLimitPolicy = { algorithm: "sliding-window", limit: 3, windowMs: 60_000 };
      const hit = { keyId: "k1", method: "GET", route: "/", day: "2026-03-01" };
      expect((await rateLimits.consume("key:k1", policy, Date.now(), hit)).remaining).toBe(2);
      await own.script("FLUSH");
      expect((await rateLimits.consume("key:k1", policy, Date.now(), hit)).remaining).toBe(1);
      expect((await usage.read("k1")).totalRequests).toBe(2);
    } finally {
      own.disconnect();
      await server.stop();
    }
  });
});
