/**
 * `combineStores` with a real `redisStore`: its rate-limit script counts usage, so only Redis's own
 * usage store may go with it.
 */
import { combineStores } from "@keyward/core";
import { memoryKeyStore, memoryUsageStore } from "@keyward/core/toolkit";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

describe.skipIf(!redisAvailable)("combineStores with redisStore", () => {
  let client: IORedis;
  const prefix = testPrefix("combine");
  // Keys and usage elsewhere, as postgresStore() provides them.
  const keysAndUsage = () => ({
    keys: memoryKeyStore(),
    usage: memoryUsageStore(),
    close: async () => {},
  });

  beforeAll(() => {
    client = new IORedis(localRedis);
  });
  afterAll(async () => {
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  it("pairs Redis's rate limits with Redis's usage when Redis comes first", async () => {
    const redis = redisStore({ client, prefix });
    const other = keysAndUsage();
    const store = combineStores(redis, other);
    expect(store.rateLimits).toBe(redis.rateLimits);
    expect(store.usage).toBe(redis.usage);
    expect(store.keys).toBe(other.keys);
    await store.close();
  });

  it("refuses another usage store beside Redis's counting rate limits, naming the fix", async () => {
    const redis = redisStore({ client, prefix });
    expect(() => combineStores(keysAndUsage(), redis)).toThrow(
      /counts usage inside its own call.*recordsUsage: false/s,
    );
    await redis.close();
  });

  it("accepts usage elsewhere once Redis no longer counts it", async () => {
    const redis = redisStore({ client, prefix, recordsUsage: false });
    const other = keysAndUsage();
    const store = combineStores(other, redis);
    expect(store.usage).toBe(other.usage);
    expect(store.rateLimits).toBe(redis.rateLimits);
    await store.close();
  });
});
