/**
 * The client address of a key's last use (`permissions({ lastUsedAddress })`) on Redis, where the
 * rate-limit scripts count usage themselves: the single-layer script (`consume.ts`) and the layered
 * one (`consume-layers.ts`) keep the latest use fields in the usage hash's `use`, including among
 * requests that share one script call, and never an older one over a newer.
 *
 * The store's calls have a test deadline (`testCallTimeoutMs`), not the production default: these
 * calls must succeed, and a busy host once made one slower than the default's 100 ms then.
 */
import { createKeyward, manualClock, type TierConfig } from "@keyward/core";
import { permissions } from "@keyward/core/permissions";
import { memoryKeyStore } from "@keyward/core/toolkit";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import {
  localRedis,
  redisAvailable,
  testCallTimeoutMs,
  testPrefix,
} from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

const scopes = { "profile:read": "Read profiles" };
const start = Date.parse("2026-07-01T10:00:00.000Z");

describe.skipIf(!redisAvailable)("redisStore: the last client address", () => {
  let client: IORedis;
  const prefix = testPrefix("last-address");
  beforeAll(() => {
    client = new IORedis(localRedis);
  });
  afterAll(async () => {
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  const setup = async (tier: TierConfig, lastUsedAddress = true) => {
    const redis = redisStore({ client, prefix, time: "caller", timeoutMs: testCallTimeoutMs });
    const clock = manualClock(start);
    const keyward = createKeyward({
      store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
      scopes,
      tiers: { free: tier },
      clock,
      logger: false,
      features: [permissions({ lastUsedAddress })],
    });
    const ownerId = `u-${crypto.randomUUID()}`;
    const { id, key } = await keyward.keys.create({
      ownerId,
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    /** Starts a verification at the clock's time, then moves the clock on a millisecond. */
    const use = (clientIp?: string) => {
      const pending = keyward.verify(`Bearer ${key}`, {
        scopes: ["profile:read"],
        route: "GET /profiles/:slug",
        clientIp,
      });
      clock.advance(1);
      return pending;
    };
    const shown = async () => {
      const usage = await keyward.keys.usage(ownerId, id);
      const [record] = await keyward.keys.list(ownerId);
      return { usage, record: record! };
    };
    return { keyward, redis, id, use, shown };
  };

  const paths: [string, TierConfig][] = [
    ["one layer (consume)", { rateLimit: { limit: 100, window: "1h" } }],
    [
      "layered limits (consume-layers)",
      { rateLimit: { limit: 100, window: "1h" }, quota: { limit: 1_000, period: "month" } },
    ],
  ];

  describe.each(paths)("%s", (_name, tier) => {
    it("records the address with the use, in the same script call", async () => {
      const { keyward, use, shown } = await setup(tier);
      expect((await use("::ffff:192.0.2.1")).ok).toBe(true);
      const { usage, record } = await shown();
      expect(usage).toMatchObject({ totalRequests: 1, lastUsedAddress: "192.0.2.1" });
      expect(usage.lastUsedAt).toBe(new Date(start).toISOString());
      expect(record.lastUsedAddress).toBe("192.0.2.1");
      await keyward.close();
    });

    it("keeps the latest request's address among requests sharing a call; one without keeps it", async () => {
      const { keyward, use, shown } = await setup(tier);
      await use("192.0.2.1");
      // One turn of the event loop: one script call for the three.
      const results = await Promise.all([use("192.0.2.9"), use("2001:DB8::3"), use()]);
      expect(results.every((result) => result.ok)).toBe(true);
      const { usage, record } = await shown();
      expect(usage.totalRequests).toBe(4);
      expect(usage.lastUsedAt).toBe(new Date(start + 3).toISOString());
      expect(usage.lastUsedAddress).toBe("2001:db8::3");
      expect(record.lastUsedAddress).toBe("2001:db8::3");
      // A later request without an address leaves it too.
      await use();
      expect((await shown()).usage.lastUsedAddress).toBe("2001:db8::3");
      await keyward.close();
    });

    it("does not let an older address written later replace a newer one", async () => {
      const { keyward, redis, id, use, shown } = await setup(tier);
      await use("192.0.2.5");
      // A batch from elsewhere (a backlog after an outage) with an older use.
      await redis.usage.record([
        {
          keyId: id,
          method: "GET",
          route: "/profiles/:slug",
          day: "2026-07-01",
          count: 1,
          lastUsedAt: start - 1_000,
          useFields: JSON.stringify({ lastUsedAddress: "198.51.100.1" }),
        },
      ]);
      expect((await shown()).usage.lastUsedAddress).toBe("192.0.2.5");
      await use("192.0.2.6");
      expect((await shown()).usage.lastUsedAddress).toBe("192.0.2.6");
      await keyward.close();
    });

    it("writes no address with lastUsedAddress off", async () => {
      const { keyward, id, use, shown } = await setup(tier, false);
      await use("192.0.2.1");
      const { usage, record } = await shown();
      expect(usage.totalRequests).toBe(1);
      expect(usage).not.toHaveProperty("lastUsedAddress");
      expect(record).not.toHaveProperty("lastUsedAddress");
      expect(await client.hget(`${prefix}usage:{key:${id}}`, "use")).toBeNull();
      await keyward.close();
    });
  });
});
