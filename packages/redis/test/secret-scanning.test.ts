/**
 * GitHub's secret-scanning endpoint with keys and events on a real Redis: revocation and its
 * `key.revoked` in one script, `key.leaked` once per key and place across GitHub's repeats.
 * Served by core's own `handle`.
 */
import { createKeyward } from "@keyward/core";
import { secretScanning } from "@keyward/core/secret-scanning";
import { demoKeywardConfig, describeSecretScanning } from "@keyward/testing";
import IORedis from "ioredis";
import { describe } from "vitest";
import { redisStore } from "../src/index.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

const jwtSecret = "redis-secret-scanning-secret-of-at-least-32-bytes";

describe.skipIf(!redisAvailable)("Redis: secret scanning", () => {
  describeSecretScanning("core handle, Redis keys and events", {
    serve: async (config) => {
      const client = new IORedis(localRedis);
      const prefix = testPrefix("leaks");
      const keyward = createKeyward({
        store: redisStore({ client, prefix, keys: true, timeoutMs: 2_000 }),
        ...demoKeywardConfig(jwtSecret, { features: [secretScanning(config)] }),
      });
      return {
        fetch: (request) => keyward.handle(request),
        keyward,
        close: async () => {
          await keyward.close();
          const cleanup = new IORedis(localRedis);
          await deletePrefix(cleanup, prefix);
          cleanup.disconnect();
        },
      };
    },
  });
});
