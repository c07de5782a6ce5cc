/**
 * Exchanged tokens (`agentTokens()`) on PostgreSQL with the key cache's invalidation over Redis,
 * two instances in one process: a token exchanged on one is admitted by the other without a query
 * once warm, and refused by the other on its first request after the revocation made on the first
 * reaches it.
 */
import { createKeyward } from "@keyward/core";
import { agentTokens, type SigningKeysConfig } from "@keyward/core/agent-tokens";
import { type CachedKeyStore, memoryRateLimitStore } from "@keyward/core/toolkit";
import { redisInvalidationChannel } from "@keyward/redis";
import IORedis from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate, postgresStore } from "../src/index.js";
import {
  countingClient,
  describeOnServer,
  dropSchema,
  serverPool,
  uniqueSchema,
  waitFor,
} from "./support/databases.js";

const audience = "https://api.example.com/mcp";

describeOnServer("agent tokens on PostgreSQL, invalidated over Redis", () => {
  const pool = serverPool();
  const schema = uniqueSchema("agent_tokens");
  const channel = `keyward-test:agent-tokens:${process.pid}:${Date.now()}`;
  const opened: { close(): Promise<void> }[] = [];
  const redisClients: IORedis[] = [];
  beforeAll(async () => {
    await migrate(pool, { schema });
  });
  afterAll(async () => {
    for (const thing of opened) await thing.close();
    for (const client of redisClients) client.disconnect();
    await dropSchema(pool, schema);
    await pool.end();
  });

  const instance = async (signingKeys: SigningKeysConfig) => {
    const redis = new IORedis({ host: "127.0.0.1", port: 6379 });
    redis.on("error", () => {});
    redisClients.push(redis);
    const { client, queries } = countingClient(pool);
    const store = postgresStore({
      client,
      schema,
      invalidation: redisInvalidationChannel({ client: redis, channel }),
    });
    await store.ready;
    const keyward = createKeyward({
      store: { keys: store.keys, usage: store.usage, rateLimits: memoryRateLimitStore() },
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 1_000, window: "1m" } } },
      jwt: false,
      logger: false,
      features: [agentTokens({ signingKeys })],
    });
    opened.push(keyward);
    return { keyward, queries, cache: store.keys as CachedKeyStore };
  };

  it("refuses a token on the other instance at its first request once its key's revocation, or rotation, reached it", async () => {
    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]);
    const k1 = await crypto.subtle.exportKey("jwk", pair.privateKey);
    const ring = { current: "k1", keys: { k1 } };
    const a = await instance(ring);
    const b = await instance(ring);
    const { key, id } = await a.keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: ["profile:read"],
      tier: "free",
    });
    const exchange = async (secret: string) => {
      const exchanged = await a.keyward.handle(
        new Request("http://localhost/api/v1/api-keys/tokens", {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify({ audience }),
        }),
      );
      expect(exchanged.status).toBe(200);
      return ((await exchanged.json()) as { token: string }).token;
    };
    const token = await exchange(key);
    const options = { audience, route: "POST /mcp", scopes: ["profile:read"] };

    expect((await b.keyward.verify(`Bearer ${token}`, options)).ok).toBe(true);
    // Warm: the key read once by id, then from the key cache; no query at all.
    b.queries.length = 0;
    expect((await b.keyward.verify(`Bearer ${token}`, options)).ok).toBe(true);
    expect(b.queries.filter((query) => !query.includes("usage"))).toEqual([]);

    const evictions = b.cache.stats.invalidations;
    await a.keyward.keys.revoke("alice", id);
    await waitFor(async () => b.cache.stats.invalidations > evictions);
    const refused = await b.keyward.verify(`Bearer ${token}`, options);
    expect(refused.ok || refused.error.detail).toBe("API key has been revoked");

    // A rotation on the first: the other refuses the old secret's tokens as soon as the change
    // reaches it.
    const rotating = await a.keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "rotating",
      scopes: ["profile:read"],
      tier: "free",
    });
    const before = await exchange(rotating.key);
    expect((await b.keyward.verify(`Bearer ${before}`, options)).ok).toBe(true);
    expect((await b.keyward.verify(`Bearer ${before}`, options)).ok).toBe(true);
    const seen = b.cache.stats.invalidations;
    await a.keyward.keys.rotate("alice", rotating.id);
    await waitFor(async () => b.cache.stats.invalidations > seen);
    const afterRotation = await b.keyward.verify(`Bearer ${before}`, options);
    expect(afterRotation.ok || afterRotation.error.detail).toMatch(/rotated/);
  });
});
