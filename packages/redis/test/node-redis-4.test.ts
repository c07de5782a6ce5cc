/**
 * node-redis 4, which many applications still run: the storage conformance suite and a verified
 * request with rate limit and usage in one call, on the real Redis at 127.0.0.1:6379. The store
 * speaks to it through the same few methods as to node-redis 5 (`evalSha`/`eval`, `publish`,
 * `duplicate`), so the peer range takes both.
 */
import { createKeyward } from "@keyward/core";
import { memoryKeyStore } from "@keyward/core/toolkit";
import { describeStorageConformance } from "@keyward/testing";
import IORedis from "ioredis";
import { createClient } from "redis4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisClient, type RedisStore, redisStore } from "../src/index.js";
import { localRedis, nodeRedisOptions, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix, dumpPrefix } from "./support/scan.js";

type Store = RedisStore & { keys: NonNullable<RedisStore["keys"]>; prefix: string };

describe.skipIf(!redisAvailable)("redisStore on node-redis 4", () => {
  const client = createClient(nodeRedisOptions);
  client.on("error", () => {});
  const probe = new IORedis(localRedis);
  const prefixes: string[] = [];
  // node-redis 4's types differ from 5's in details the store never touches.
  const asClient = client as unknown as RedisClient;

  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    for (const prefix of prefixes) await deletePrefix(probe, prefix);
    probe.disconnect();
    await client.quit();
  });

  describeStorageConformance<Store>("redis (node-redis 4)", {
    createStore() {
      const prefix = testPrefix("node-redis-4");
      prefixes.push(prefix);
      // On the caller's clock, as in conformance.test.ts: the suite's time-based section uses a fake one.
      const store = redisStore({
        client: asClient,
        prefix,
        keys: true,
        timeoutMs: 2_000,
        time: "caller",
      });
      return { ...store, prefix };
    },
    probe: {
      dump: (store) => dumpPrefix(probe, store.prefix),
      async rawKey(store, id) {
        const record = await probe.hgetall(`${store.prefix}{keys}:id:${id}`);
        return Object.keys(record).length === 0 ? null : record;
      },
    },
  });

  it("limits and counts usage in one script call per verified request", async () => {
    const prefix = testPrefix("node-redis-4");
    prefixes.push(prefix);
    const redis = redisStore({ client: asClient, prefix, timeoutMs: 2_000 });
    const keyward = createKeyward({
      store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 2, window: "1m" } } },
      jwt: false,
      logger: false,
    });
    const { id, key } = await keyward.keys.create({
      ownerId: "u4",
      accountTier: "free",
      name: "node-redis 4",
      scopes: ["profile:read"],
      tier: "free",
    });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const result = await keyward.verify(`Bearer ${key}`, { route: "GET /p/:slug" });
      statuses.push(result.ok ? 200 : result.error.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect((await keyward.keys.usage("u4", id)).totalRequests).toBe(3);
    await keyward.close();
    await redis.close();
  });
});
