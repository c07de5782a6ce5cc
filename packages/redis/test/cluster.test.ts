/**
 * A 3-node Redis Cluster started for this file (three `redis-server --cluster-enabled yes` on random
 * loopback ports, joined by `redis-cli --cluster create`), reached through ioredis's `Cluster`.
 * The storage conformance suite runs on it (rate limits and usage spread over the nodes by hash
 * tag; keys in their one slot), and verification through Keyward makes one script call per request
 * for rate limit and usage together, which a cluster refuses unless both keys share a slot.
 */
import { createKeyward, type KeyWithSecret, manualClock } from "@keyward/core";
import { type BudgetsApi, budgets } from "@keyward/core/budgets";
import { memoryKeyStore } from "@keyward/core/toolkit";
import { describeStorageConformance } from "@keyward/testing";
import { Cluster } from "ioredis";
import { createCluster } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisStore, redisHoldStore, redisStore } from "../src/index.js";
import { testPrefix } from "./support/local-redis.js";
import { type RedisCluster, startRedisCluster } from "./support/redis-servers.js";
import { deletePrefix, dumpPrefix, keysUnder } from "./support/scan.js";

type Store = RedisStore & { keys: NonNullable<RedisStore["keys"]>; prefix: string };

describe("redisStore on a 3-node Redis Cluster (ioredis Cluster)", () => {
  let cluster: RedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster(cluster.nodes);
    await client.ping();
  }, 60_000);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  const masters = () => client.nodes("master");

  describeStorageConformance<Store>("redis cluster", {
    createStore() {
      const prefix = testPrefix("cluster");
      // On the caller's clock, as in conformance.test.ts: the suite's time-based section uses a fake one.
      return {
        ...redisStore({ client, prefix, keys: true, timeoutMs: 2_000, time: "caller" }),
        prefix,
      };
    },
    // SCAN covers one node: the store refuses to prune on a cluster (see below).
    skipUsagePrune: true,
    async closeStore(store) {
      await store.close();
      for (const node of masters()) await deletePrefix(node, store.prefix);
    },
    probe: {
      async dump(store) {
        return Promise.all(masters().map((node) => dumpPrefix(node, store.prefix)));
      },
      async rawKey(store, id) {
        const record = await client.hgetall(`${store.prefix}{keys}:id:${id}`);
        return Object.keys(record).length === 0 ? null : record;
      },
    },
  });

  it("refuses to prune usage (SCAN covers one node) and says so, touching nothing", async () => {
    const prefix = testPrefix("cluster-prune");
    const redis = redisStore({ client, prefix, timeoutMs: 2_000 });
    const day = { method: "GET", route: "/p", count: 2, lastUsedAt: 1 };
    await redis.usage.record([{ keyId: "k1", day: "1990-01-01", ...day }]);
    await expect(redis.usage.prune!("1990-01-02")).rejects.toThrow(/Redis Cluster/);
    expect((await redis.usage.read("k1")).daily).toEqual([{ date: "1990-01-01", count: 2 }]);
    for (const node of masters()) await deletePrefix(node, prefix);
  });

  it("spreads principals over every node, and limits and counts each in one call", async () => {
    const prefix = testPrefix("cluster-verify");
    const redis = redisStore({ client, prefix, timeoutMs: 2_000 });
    const keys = memoryKeyStore();
    const keyward = createKeyward({
      store: { keys, usage: redis.usage, rateLimits: redis.rateLimits },
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 3, window: "1m", algorithm: "gcra" } } },
    });
    const created = [];
    for (let i = 0; i < 24; i++) {
      created.push(
        await keyward.keys.create({
          ownerId: "owner",
          accountTier: "free",
          name: `key ${i}`,
          scopes: ["profile:read"],
          tier: "free",
        }),
      );
    }
    for (const { key } of created) {
      const outcomes = [];
      for (let i = 0; i < 5; i++) {
        const result = await keyward.verify(`Bearer ${key}`, { route: "GET /profiles/:slug" });
        outcomes.push(result.ok ? 200 : result.error.status);
      }
      expect(outcomes).toEqual([200, 200, 200, 429, 429]);
    }
    for (const { id } of created) {
      const usage = await redis.usage.read(id);
      expect(usage.totalRequests).toBe(5);
      expect(usage.endpoints).toEqual([{ method: "GET", route: "/profiles/:slug", count: 5 }]);
    }
    // Each node holds some of the state: the hash tags spread principals, not just one slot.
    const perNode = await Promise.all(
      masters().map(async (node) => Object.keys(await dumpPrefix(node, prefix)).length),
    );
    expect(perNode.filter((count) => count > 0)).toHaveLength(3);
    // One hash per API key holds its usage and its rate-limit state.
    expect(perNode.reduce((sum, count) => sum + count, 0)).toBe(24);
    await keyward.close();
    for (const node of masters()) await deletePrefix(node, prefix);
  });

  it("keeps every layer of one owner in one slot: one script call per request, usage beside it", async () => {
    const prefix = testPrefix("cluster-layers");
    const redis = redisStore({ client, prefix, timeoutMs: 2_000 });
    const keyward = createKeyward({
      store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
      scopes: { "profile:read": "Read profiles" },
      tiers: {
        free: {
          rateLimit: { limit: 100, window: "1m" },
          ownerRateLimit: { limit: 4, window: "1h", algorithm: "fixed-window" },
          quota: { limit: 1_000, period: "month" },
        },
      },
      logger: false,
    });
    // Many owners, so their hash tags land on every node; each with three keys.
    for (let owner = 0; owner < 12; owner++) {
      const keys: KeyWithSecret[] = [];
      for (let i = 0; i < 3; i++) {
        keys.push(
          await keyward.keys.create({
            ownerId: `owner-${owner}`,
            accountTier: "free",
            name: `key ${i}`,
            scopes: ["profile:read"],
            tier: "free",
          }),
        );
      }
      await keyward.keys.setLimits(keys[0]!.id, { credits: { remaining: 10 } });
      const outcomes = [];
      for (let i = 0; i < 6; i++) {
        const result = await keyward.verify(`Bearer ${keys[i % 3]!.key}`, { route: "GET /p" });
        outcomes.push(result.ok ? 200 : result.error.status);
      }
      // The shared allowance of 4 holds across the three keys: no CROSSSLOT, one atomic step.
      expect(outcomes).toEqual([200, 200, 200, 200, 429, 429]);
      // Usage lives in each key's own slot and is counted beside the script, refusals included.
      await expect.poll(async () => (await redis.usage.read(keys[0]!.id)).totalRequests).toBe(2);
      const report = await keyward.keys.usage(`owner-${owner}`, keys[0]!.id);
      expect(report.quota?.remaining).toBe(996);
      expect(report.credits?.remaining).toBe(8);
    }
    const layerKeys = await Promise.all(
      masters().map(async (node) =>
        Object.keys(await dumpPrefix(node, prefix)).filter((key) => key.includes("layer:")),
      ),
    );
    // Every node holds some owners' layers, and each owner's layers sit on one node only.
    expect(layerKeys.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
    for (let owner = 0; owner < 12; owner++) {
      const tag = `{user:owner-${owner}}`;
      const nodesWithOwner = layerKeys.filter((keys) => keys.some((key) => key.includes(tag)));
      expect(nodesWithOwner).toHaveLength(1);
    }
    await keyward.close();
    for (const node of masters()) await deletePrefix(node, prefix);
  });

  it("adds a feature's counter increments in the owner's slot, in the layers' one script", async () => {
    const prefix = testPrefix("cluster-increments");
    const store = redisStore({ client, prefix, time: "caller" });
    const now = Date.UTC(2026, 11, 7, 12);
    const owners = Array.from({ length: 12 }, (_, i) => `user:owner-${i}`);
    try {
      for (const owner of owners) {
        const decisions = await Promise.all(
          Array.from({ length: 5 }, () =>
            store.rateLimits.consumeLayers!({
              owner,
              now,
              layers: [{ layer: "quota", bucket: `quota:${owner}`, limit: 3, period: "day" }],
              increments: [{ counter: "ledger:1", field: "requests", by: 1 }],
            }),
          ),
        );
        expect(decisions.filter((decision) => decision.allowed)).toHaveLength(3);
        expect(await store.rateLimits.readCounter!(owner, "ledger:1", now)).toEqual({
          requests: 3,
        });
      }
      // Spread over the nodes by the owners' hash tags, as their layers are.
      const nodesHolding = await Promise.all(
        masters().map(async (node) => (await keysUnder(node, `${prefix}counter:`)).length > 0),
      );
      expect(nodesHolding.filter(Boolean).length).toBeGreaterThan(1);
    } finally {
      await store.close();
      for (const node of masters()) await deletePrefix(node, prefix);
    }
  });

  it("keeps budgets' holds as layers in each owner's slot, their records in one", async () => {
    const prefix = testPrefix("cluster-holds");
    const clock = manualClock(Date.UTC(2026, 11, 7, 12));
    const redis = redisStore({ client, prefix, timeoutMs: 2_000, time: "caller" });
    const keyward = createKeyward({
      store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
      scopes: { "completions:write": "Write completions" },
      tiers: { free: { rateLimit: { limit: 1_000, window: "1m" } } },
      clock,
      jwt: false,
      logger: false,
      features: [
        budgets({
          perKey: { limit: 1_000, period: "day" },
          holds: redisHoldStore({ client, prefix, timeoutMs: 2_000 }),
          sweepInterval: false,
        }),
      ],
    }) as ReturnType<typeof createKeyward> & { budgets: BudgetsApi };
    try {
      const ask = { scopes: ["completions:write"], route: "POST /completions" };
      const agents = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          keyward.keys.create({
            ownerId: `holder-${i}`,
            accountTier: "free",
            name: "agent",
            scopes: ask.scopes,
            tier: "free",
          }),
        ),
      );
      const holds = await Promise.all(
        agents.map(async ({ key }) => {
          const reserved = await keyward.budgets.reserve(`Bearer ${key}`, { ...ask, cost: 600 });
          if (!reserved.ok) throw new Error("refused");
          return reserved.hold;
        }),
      );
      // Held on the nodes of the owners' slots: more than one node holds hold layers.
      const nodesHolding = await Promise.all(
        masters().map(async (node) => (await keysUnder(node, `${prefix}layer:`)).length > 0),
      );
      expect(nodesHolding.filter(Boolean).length).toBeGreaterThan(1);
      const refused = await keyward.budgets.reserve(`Bearer ${agents[0]!.key}`, {
        ...ask,
        cost: 401,
      });
      expect(refused.ok).toBe(false);
      await Promise.all(holds.map((hold, i) => (i % 2 ? hold.settle(100) : hold.release())));
      for (const [i, agent] of agents.entries()) {
        expect((await keyward.budgets.usage(agent.id))!.key).toMatchObject({
          held: 0,
          spent: i % 2 ? 100 : 0,
        });
      }
      // Nothing of the holds is left: no layer, and (removed after their ends) no record.
      const holdLayers = async () => {
        let found = 0;
        for (const node of masters()) {
          found += (await keysUnder(node, prefix)).filter((key) => key.includes(":hold:")).length;
        }
        return found;
      };
      expect(await holdLayers()).toBe(0);
      await expect.poll(() => client.hlen(`${prefix}{holds}:record`), { timeout: 30_000 }).toBe(0);
    } finally {
      await keyward.close();
      for (const node of masters()) await deletePrefix(node, prefix);
    }
  });

  it("runs rate limit and usage through a node-redis cluster too", async () => {
    const nodeCluster = createCluster({
      rootNodes: cluster.nodes.map(({ host, port }) => ({ socket: { host, port } })),
    });
    await nodeCluster.connect();
    try {
      const prefix = testPrefix("node-cluster");
      const redis = redisStore({ client: nodeCluster, prefix, timeoutMs: 2_000 });
      const policy = { algorithm: "sliding-window", limit: 2, windowMs: 60_000 } as const;
      for (let i = 0; i < 10; i++) {
        const keyId = `k${i}`;
        const hit = { keyId, method: "GET", route: "/r", day: "2026-03-01" };
        const outcomes = [];
        for (let j = 0; j < 3; j++) {
          outcomes.push(
            (await redis.rateLimits.consume(`key:${keyId}`, policy, Date.now(), hit)).allowed,
          );
        }
        expect(outcomes).toEqual([true, true, false]);
        expect((await redis.usage.read(keyId)).totalRequests).toBe(3);
      }
      expect((await redis.usage.lastUsed(["k1", "k7", "none"])).size).toBe(2);
      for (const node of masters()) await deletePrefix(node, prefix);
    } finally {
      await nodeCluster.close();
    }
  });

  it("carries invalidations between instances over the cluster's pub/sub", async () => {
    const prefix = testPrefix("cluster-channel");
    const other = new Cluster(cluster.nodes);
    const listening = redisStore({ client, prefix, timeoutMs: 2_000 });
    const publishing = redisStore({ client: other, prefix, timeoutMs: 2_000 });
    try {
      const received: string[] = [];
      const stop = await listening.invalidation.subscribe((event) => received.push(event.keyId));
      await publishing.invalidation.publish({ keyId: "revoked", secretHash: "h" });
      await expect.poll(() => received).toEqual(["revoked"]);
      await stop();
    } finally {
      await listening.close();
      await publishing.close();
      other.disconnect();
    }
  });
});
