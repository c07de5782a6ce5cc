/**
 * A key stored with credits past the bound every way in now has (10^15; an import once took
 * `remaining: 1e308`, and the layered script failed every request with "attempt to compare number
 * with nil", 1e20 turned into a huge negative balance) runs at the bound on Redis: served, its
 * balance counted down exactly, its usage report answered.
 */
import { createKeyward, manualClock } from "@keyward/core";
import { memoryKeyStore } from "@keyward/core/toolkit";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

describe.skipIf(!redisAvailable)("redisStore: credits stored past the bound", () => {
  let client: IORedis;
  const prefix = testPrefix("out-of-bound");
  beforeAll(() => {
    client = new IORedis(localRedis);
  });
  afterAll(async () => {
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  it.each([1e20, 1e308])(
    "serves a key whose stored credits are %d, at 10^15",
    async (remaining) => {
      const redis = redisStore({ client, prefix: `${prefix}${remaining}:`, time: "caller" });
      const keys = memoryKeyStore();
      const clock = manualClock(Date.parse("2026-07-01T10:00:00.000Z"));
      const keyward = createKeyward({
        store: { keys, usage: redis.usage, rateLimits: redis.rateLimits },
        scopes: { "profile:read": "Read" },
        tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
        clock,
        jwt: false,
        logger: false,
      });
      const { id, key } = await keyward.keys.create({
        ownerId: "alice",
        accountTier: "free",
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
      });
      // Written to the store directly, as a record from before the bound: no way in takes it now.
      await keys.setLimits!(id, { credits: { remaining, grantedAt: clock.now() } });
      for (let i = 0; i < 2; i++) {
        const result = await keyward.verify(`Bearer ${key}`, { route: "GET /x" });
        expect(result.ok).toBe(true);
      }
      const usage = await keyward.keys.usage("alice", id);
      expect(usage.credits?.remaining).toBe(1e15 - 2);
      await keyward.close();
    },
  );
});
