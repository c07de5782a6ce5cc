/**
 * Redis dies in the middle of a run. A private redis-server is started, serves a few requests,
 * is killed with SIGKILL, and is started again on the same port. Through `keyward.verify`:
 *
 * - fail-closed: every request during the outage is a 500; fail-open: requests are admitted up to
 *   the in-memory insurance limit, then refused with 429, never a 500;
 * - every request is answered while the server is down (how long each one takes is bounded in
 *   fault.timing.test.ts, in the timing project: no request waits longer than the timeout);
 * - once the server is back, requests are served by Redis again without a restart; the usage of
 *   the requests answered during the outage (fail-open) reaches Redis, while the 500s of
 *   fail-closed count for nothing.
 *
 * The clients run with their default settings (offline queues on), the least favourable case: the
 * store's own deadline is what keeps requests from waiting on a reconnecting client.
 */
import { createKeyward, type VerifyResult } from "@keyward/core";
import { memoryKeyStore } from "@keyward/core/toolkit";
import { afterEach, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { driverClient } from "./support/driver-client.js";
import { type RedisServer, startRedisServer } from "./support/redis-servers.js";

/**
 * The store's deadline. Not the 100 ms of fault.timing.test.ts: here a healthy call must not miss
 * it because a busy machine paused the test for a tenth of a second, and the outage still leaves
 * most of its second to calls the open circuit refuses at once.
 */
const timeoutMs = 300;
const insuranceLimit = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Redis stopped mid-run", () => {
  let server: RedisServer | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await server?.stop();
    server = undefined;
  });

  for (const driver of ["ioredis", "node-redis"] as const) {
    for (const policy of ["fail-closed", "fail-open"] as const) {
      it(`${driver}, ${policy}: applies the policy, recovers`, async () => {
        server = await startRedisServer();
        const { client, close } = await driverClient(driver, server.port);
        cleanups.push(close);
        const errors: unknown[] = [];
        const redis = redisStore({
          client,
          timeoutMs,
          onStoreError: policy,
          onError: (error) => errors.push(error),
        });
        const keyward = createKeyward({
          store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
          scopes: { "profile:read": "Read profiles" },
          tiers: {
            free: { rateLimit: { limit: insuranceLimit, window: "1h", algorithm: "gcra" } },
          },
        });
        cleanups.push(() => keyward.close());
        const { id, key } = await keyward.keys.create({
          ownerId: "u1",
          accountTier: "free",
          name: "k",
          scopes: ["profile:read"],
          tier: "free",
        });
        const verify = async () => {
          const started = performance.now();
          const result: VerifyResult = await keyward.verify(`Bearer ${key}`, {
            route: "GET /profiles/:slug",
          });
          return { result, ms: performance.now() - started };
        };
        const status = ({ result }: { result: VerifyResult }) =>
          result.ok ? 200 : result.error.status;

        // Healthy: served by Redis.
        for (let i = 0; i < 2; i++) expect(status(await verify())).toBe(200);

        // Outage: sequential requests and bursts of concurrent ones for about a second.
        await server.kill();
        const during: { result: VerifyResult; ms: number }[] = [];
        const outageStarted = performance.now();
        while (performance.now() - outageStarted < 1_000) {
          during.push(await verify());
          during.push(...(await Promise.all(Array.from({ length: 8 }, verify))));
          await sleep(20);
        }
        const slowest = Math.max(...during.map((d) => d.ms));
        const statuses = during.map(status);
        console.info(
          `${driver}, ${policy}: ${during.length} requests during the outage, slowest ${slowest.toFixed(1)} ms (timeout ${timeoutMs} ms), median ${median(during.map((d) => d.ms)).toFixed(2)} ms; ${errors.length} failed Redis calls reported; statuses ${summary(statuses)}`,
        );
        expect(errors.length).toBeGreaterThan(0);
        if (policy === "fail-closed") {
          expect(new Set(statuses)).toEqual(new Set([500]));
          const failed = during.find((d) => !d.result.ok)!.result as { error: { detail: unknown } };
          expect(failed.error.detail).toBe("Internal server error");
        } else {
          // The insurance limiter starts empty: `limit` admitted, then refused, never an error.
          expect(statuses.slice(0, insuranceLimit)).toEqual(Array(insuranceLimit).fill(200));
          expect(new Set(statuses.slice(insuranceLimit))).toEqual(new Set([429]));
        }

        // Back on the same port (empty: nothing was persisted). No restart of anything else.
        const restarted = performance.now();
        await server.restart();
        let recovered: number | undefined;
        let after = 0;
        let servedAfter = 0;
        while (performance.now() - restarted < 10_000) {
          const attempt = await verify();
          after += 1;
          if (attempt.result.ok) {
            servedAfter += 1;
            recovered = performance.now() - restarted;
            break;
          }
          await sleep(25);
        }
        expect(recovered, "service did not recover").toBeDefined();
        const served = await verify();
        after += 1;
        servedAfter += 1;
        expect(status(served)).toBe(200);
        // Served by Redis: the fresh server's count, not the insurance limiter's (exhausted when
        // failing open). A call the client had already sent when the server died may have been
        // replayed on reconnection, so a few more than our two may have been counted.
        if (served.result.ok) {
          const { remaining } = served.result.rateLimit;
          expect(remaining).toBeLessThanOrEqual(insuranceLimit - 2);
          expect(remaining).toBeGreaterThanOrEqual(insuranceLimit - 2 - errors.length);
        }

        // Failing open, usage of the outage's requests was held and written once Redis answered
        // again; failing closed, only served requests count, never a 500. A call that timed out
        // while queued in the client may also have run after the reconnection, so the count can
        // exceed the requests by at most the failed calls.
        const expected = policy === "fail-open" ? during.length + after : servedAfter;
        let total = 0;
        for (let i = 0; i < 100 && total < expected; i++) {
          total = (await redis.usage.read(id)).totalRequests;
          if (total < expected) await sleep(20);
        }
        console.info(
          `${driver}, ${policy}: recovered ${recovered!.toFixed(0)} ms after the restart; usage ${total} for ${expected} requests since the restart's data loss`,
        );
        expect(total).toBeGreaterThanOrEqual(expected);
        expect(total).toBeLessThanOrEqual(expected + errors.length);
      });
    }
  }
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function summary(statuses: number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${status}×${count}`).join(", ");
}
