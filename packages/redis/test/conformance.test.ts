/**
 * The storage conformance suite of `@keyward/testing`, against the real Redis at 127.0.0.1:6379,
 * through both drivers. The probe reads Redis directly, not through the store.
 */
import { describeStorageConformance } from "@keyward/testing";
import IORedis from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe } from "vitest";
import { type RedisStore, redisStore } from "../src/index.js";
import { localRedis, nodeRedisOptions, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix, dumpPrefix } from "./support/scan.js";

type Store = RedisStore & { keys: NonNullable<RedisStore["keys"]>; prefix: string };

const drivers = {
  ioredis: () => new IORedis(localRedis),
  "node-redis": () => createClient(nodeRedisOptions),
};

describe.skipIf(!redisAvailable).each(Object.keys(drivers) as (keyof typeof drivers)[])(
  "redisStore on %s",
  (driver) => {
    // One client per driver for the stores; a separate ioredis client reads Redis for the probe.
    let client: IORedis | ReturnType<typeof createClient>;
    let probe: IORedis;
    const prefixes: string[] = [];

    beforeAll(async () => {
      client = drivers[driver]();
      if (!(client instanceof IORedis)) await client.connect();
      probe = new IORedis(localRedis);
    });
    afterAll(async () => {
      for (const prefix of prefixes) await deletePrefix(probe, prefix);
      probe.disconnect();
      if (client instanceof IORedis) client.disconnect();
      else await client.close();
    });

    describeStorageConformance<Store>(`redis (${driver})`, {
      createStore() {
        const prefix = testPrefix(driver);
        prefixes.push(prefix);
        // Layers stepped on the caller's clock, as every other store does: the suite's
        // time-based section runs on a fake clock (quota periods that end, expiries that come).
        const store = redisStore({ client, prefix, keys: true, timeoutMs: 2_000, time: "caller" });
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
  },
);
