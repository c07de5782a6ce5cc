/**
 * A credits layer with a negative cost gives back what an admitted request spent, in the same one
 * script as any layered step, as `stepLayer` does on the memory store and PostgreSQL: a settled
 * hold returns what it did not use. Against the local Redis.
 */
import type { LimitLayer } from "@keyward/core";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

describe.skipIf(!redisAvailable)("credits given back on Redis (a negative cost)", () => {
  const prefix = testPrefix("give-back");
  let client: IORedis;
  let store: ReturnType<typeof redisStore>;
  beforeAll(() => {
    client = new IORedis(localRedis);
    store = redisStore({ client, prefix, time: "caller" });
  });
  afterAll(async () => {
    await store.close();
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  const now = Date.UTC(2026, 11, 7, 12);
  const credits = (cost: number): LimitLayer[] => [
    { layer: "credits", bucket: "credits:k1", cost, remaining: 100, grantedAt: 7 },
  ];

  it("adds a negative cost back to the balance, and the next request sees it", async () => {
    const limits = store.rateLimits;
    const spent = await limits.consumeLayers!({ owner: "user:a", layers: credits(60), now });
    expect(spent.layers[0]).toMatchObject({ allowed: true, remaining: 40 });
    const back = await limits.consumeLayers!({ owner: "user:a", layers: credits(-25), now });
    expect(back.layers[0]).toMatchObject({ allowed: true, remaining: 65 });
    const read = await limits.readLayers!({ owner: "user:a", layers: credits(1), now });
    expect(read[0]).toMatchObject({ remaining: 65 });
  });
});
