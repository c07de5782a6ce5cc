/** The budgets suite on Redis: keys, limits and holds in the local Redis, one script per step. */
import { createKeyward } from "@keyward/core";
import { describeBudgets } from "@keyward/testing";
import IORedis from "ioredis";
import { describe } from "vitest";
import { redisHoldStore, redisStore } from "../src/index.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

describe.skipIf(!redisAvailable)("Redis", () => {
  const prefix = testPrefix("budgets");
  const client = new IORedis(localRedis);
  const stores: ReturnType<typeof redisStore>[] = [];
  describeBudgets({
    name: "Redis",
    holds: () => redisHoldStore({ client, prefix: `${prefix}${crypto.randomUUID()}:` }),
    keyward: ({ clock, features }) => {
      const store = redisStore({ client, prefix, keys: true, time: "caller" });
      stores.push(store);
      return createKeyward({
        store,
        scopes: { "completions:write": "Write completions" },
        tiers: { free: { rateLimit: { limit: 10_000, window: "1m" } } },
        clock,
        jwt: false,
        logger: false,
        features,
      });
    },
    async cleanup() {
      for (const store of stores) await store.close();
      await deletePrefix(client, prefix);
      client.disconnect();
    },
  });
});
