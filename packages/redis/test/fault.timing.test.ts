/**
 * Timing project (vitest.timing.config.ts): while a private redis-server is down (SIGKILL) and
 * while it comes back, no `keyward.verify` waits longer than the store's timeout plus a little.
 * fault.test.ts (unit suite) asserts the outcomes of the same outage: the policy applied, the
 * recovery, the usage written.
 */
import { createKeyward } from "@keyward/core";
import { memoryKeyStore } from "@keyward/core/toolkit";
import { afterEach, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { driverClient } from "./support/driver-client.js";
import { type RedisServer, startRedisServer } from "./support/redis-servers.js";

const timeoutMs = 100;
/** Room for the event loop and timer granularity on a loaded machine. */
const latencySlackMs = 60;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Redis stopped mid-run: how long requests wait", () => {
  let server: RedisServer | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await server?.stop();
    server = undefined;
  });

  for (const driver of ["ioredis", "node-redis"] as const) {
    for (const policy of ["fail-closed", "fail-open"] as const) {
      it(`${driver}, ${policy}: never waits past the timeout, down or coming back`, async () => {
        server = await startRedisServer();
        const { client, close } = await driverClient(driver, server.port);
        cleanups.push(close);
        const redis = redisStore({ client, timeoutMs, onStoreError: policy, onError() {} });
        const keyward = createKeyward({
          store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
          scopes: { "profile:read": "Read profiles" },
          tiers: { free: { rateLimit: { limit: 50, window: "1h", algorithm: "gcra" } } },
        });
        cleanups.push(() => keyward.close());
        const { key } = await keyward.keys.create({
          ownerId: "u1",
          accountTier: "free",
          name: "k",
          scopes: ["profile:read"],
          tier: "free",
        });
        const verify = async () => {
          const started = performance.now();
          const result = await keyward.verify(`Bearer ${key}`, { route: "GET /profiles/:slug" });
          return { ok: result.ok, ms: performance.now() - started };
        };
        expect((await verify()).ok).toBe(true);

        await server.kill();
        const during: number[] = [];
        const outageStarted = performance.now();
        while (performance.now() - outageStarted < 1_000) {
          during.push((await verify()).ms);
          during.push(...(await Promise.all(Array.from({ length: 8 }, verify))).map((d) => d.ms));
          await sleep(20);
        }
        console.info(
          `${driver}, ${policy}: ${during.length} requests during the outage, slowest ${Math.max(...during).toFixed(1)} ms (timeout ${timeoutMs} ms)`,
        );
        expect(Math.max(...during)).toBeLessThanOrEqual(timeoutMs + latencySlackMs);

        const restarted = performance.now();
        await server.restart();
        let recovered = false;
        while (!recovered && performance.now() - restarted < 10_000) {
          const attempt = await verify();
          expect(attempt.ms).toBeLessThanOrEqual(timeoutMs + latencySlackMs);
          recovered = attempt.ok;
          if (!recovered) await sleep(25);
        }
        expect(recovered, "service did not recover").toBe(true);
      });
    }
  }
});
