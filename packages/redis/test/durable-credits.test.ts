/**
 * Asked with `durableCredits`, the layered script never starts a credits layer it holds no state
 * for from its grant: it decides nothing, changes nothing (not the quota, not the key's own limit)
 * and answers `unseeded`, until `seedCredits` writes the durable balance, or, with none, a value
 * that starts the layer from its grant. Against the local Redis.
 */
import type { LayeredConsume, LimitLayer } from "@keyward/core";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

describe.skipIf(!redisAvailable)("durable credits on Redis: unseeded, then seeded", () => {
  const prefix = testPrefix("durable-credits");
  let client: IORedis;
  let store: ReturnType<typeof redisStore>;

  beforeAll(() => {
    client = new IORedis(localRedis);
    store = redisStore({ client, prefix });
  });
  afterAll(async () => {
    await store.close();
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  const now = Date.UTC(2026, 10, 27, 12);
  const request = (keyId: string, durableCredits: boolean): LayeredConsume => {
    const layers: LimitLayer[] = [
      { layer: "quota", bucket: "quota:user:payer", limit: 10, period: "day" },
      { layer: "credits", bucket: `credits:${keyId}`, cost: 2, remaining: 100, grantedAt: 7 },
    ];
    return { owner: "user:payer", layers, now, durableCredits };
  };
  const rateLimits = () => store.rateLimits;

  it("answers unseeded and changes nothing while the credits have no state", async () => {
    const first = await rateLimits().consumeLayers!(request("k1", true));
    expect(first.unseeded).toBe(true);
    expect(first.allowed).toBe(false);
    expect(first.layers[1]).toMatchObject({ layer: "credits", unseeded: true });
    // The quota was not charged: a read shows it whole, and the credits still unseeded.
    const read = await rateLimits().readLayers!(request("k1", true));
    expect(read[0]).toMatchObject({ layer: "quota", remaining: 10 });
    expect(read[1]).toMatchObject({ layer: "credits", unseeded: true });
    expect(await client.exists(`${prefix}layer:{user:payer}:credits:k1`)).toBe(0);
  });

  it("goes on from the seeded balance, and a second seed leaves a state in use alone", async () => {
    await rateLimits().seedCredits!("user:payer", [{ bucket: "credits:k2", state: [7, 40, 0] }]);
    const decision = await rateLimits().consumeLayers!(request("k2", true));
    expect(decision.unseeded).toBeUndefined();
    expect(decision.allowed).toBe(true);
    expect(decision.layers[1]).toMatchObject({ layer: "credits", remaining: 38 });
    await rateLimits().seedCredits!("user:payer", [{ bucket: "credits:k2", state: [7, 40, 0] }]);
    const next = await rateLimits().consumeLayers!(request("k2", true));
    expect(next.layers[1]).toMatchObject({ remaining: 36 });
  });

  it("starts from the grant when there is no durable balance to seed", async () => {
    await rateLimits().seedCredits!("user:payer", [{ bucket: "credits:k3", state: undefined }]);
    const decision = await rateLimits().consumeLayers!(request("k3", true));
    expect(decision.allowed).toBe(true);
    expect(decision.layers[1]).toMatchObject({ remaining: 98 });
  });

  it("without durableCredits, starts a missing state from the grant as before", async () => {
    const decision = await rateLimits().consumeLayers!(request("k4", false));
    expect(decision.unseeded).toBeUndefined();
    expect(decision.layers[1]).toMatchObject({ remaining: 98 });
  });
});
