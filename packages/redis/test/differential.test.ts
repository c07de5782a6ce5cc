/**
 * The Lua transcription against the TypeScript original. Random request schedules (bursts, gaps
 * around the window, long idles, a clock that steps back, policy changes) run through
 * `memoryRateLimitStore` (core's `stepRateLimit` plus expiry) and through the Redis script on the
 * caller's clock; every decision must be identical: allowed, remaining, reset and retryAfter.
 * Requests go to Redis one per call and, as the store batches them, several per call.
 */
import type { RateLimitAlgorithmName, RateLimitDecision, RateLimitPolicy } from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisConnection } from "../src/client/connect.js";
import { keyNames } from "../src/key-names.js";
import { type StepRequest, stepsOnRedis } from "../src/rate-limit/redis-steps.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";
import { seededRandom } from "./support/seeded-random.js";

const algorithms: RateLimitAlgorithmName[] = [
  "fixed-window",
  "sliding-window",
  "token-bucket",
  "gcra",
];

/** [limit, windowMs]: ordinary tiers, awkward ratios, one-per-ms, and limit × window near 2^53. */
const shapes: [number, number][] = [
  [1, 1],
  [1, 1_000],
  [3, 10],
  [7, 1_000],
  [10, 60_000],
  [60, 60_000],
  [600, 60_000],
  [1_000, 1_000],
  [6_000, 60_000],
  [1_000_000, 86_400_000],
  [9_000_000, 1_000_000_000],
];

describe.skipIf(!redisAvailable)("Lua and TypeScript decide alike", () => {
  let client: IORedis;
  const prefix = testPrefix("differential");
  const names = keyNames(prefix);

  beforeAll(() => {
    client = new IORedis(localRedis);
  });
  afterAll(async () => {
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  for (const algorithm of algorithms) {
    it(`${algorithm}: identical decisions on random schedules`, async () => {
      const connection = redisConnection(client);
      let compared = 0;
      let refused = 0;
      for (let schedule = 0; schedule < 24; schedule++) {
        const seed = (algorithms.indexOf(algorithm) + 1) * 1_000 + schedule;
        const random = seededRandom(seed);
        const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
        const reference = memoryRateLimitStore();
        // An API key's state lives in its usage hash, anything else's in a key of its own: both.
        const bucket = `${schedule % 4 < 2 ? "key" : "user"}:diff-${algorithm}-${schedule}`;
        let [limit, windowMs] = pick(shapes);
        let now = Date.parse("2026-03-01T00:00:00Z") + Math.floor(random() * 10_000_000);

        // Runs of consecutive requests go to Redis in one call, as the store batches them.
        let batch: StepRequest[] = [];
        let expectedBatch: RateLimitDecision[] = [];
        let batchPolicy: RateLimitPolicy = { algorithm, limit, windowMs };
        const sendBatch = async (step: number) => {
          if (batch.length === 0) return;
          const [results] = await stepsOnRedis(
            connection,
            names,
            [{ bucket, policy: batchPolicy, requests: batch }],
            "caller",
          );
          results!.forEach(({ decision }, index) => {
            const expected = expectedBatch[index]!;
            if (!sameDecision(decision, expected)) {
              expect(
                { decision, seed, step, index, requests: batch, policy: batchPolicy },
                "a Lua decision differs from the TypeScript one",
              ).toEqual({
                decision: expected,
                seed,
                step,
                index,
                requests: batch,
                policy: batchPolicy,
              });
            }
            compared += 1;
            if (!expected.allowed) refused += 1;
          });
          batch = [];
          expectedBatch = [];
        };

        for (let step = 0; step < 160; step++) {
          const roll = random();
          if (roll < 0.35) now += 0;
          else if (roll < 0.6) now += 1 + Math.floor(random() * 3);
          else if (roll < 0.8) now += Math.floor(random() * windowMs);
          else if (roll < 0.88) now += windowMs + pick([-1, 0, 1]);
          else if (roll < 0.93) now += Math.floor(random() * 5 * windowMs);
          else if (roll < 0.97) now -= Math.floor(random() * Math.min(windowMs, 5_000));
          else [limit, windowMs] = pick(shapes);
          const policy: RateLimitPolicy = { algorithm, limit, windowMs };
          if (policy.limit !== batchPolicy.limit || policy.windowMs !== batchPolicy.windowMs) {
            await sendBatch(step);
            batchPolicy = policy;
          }
          expectedBatch.push(await reference.consume(bucket, policy, now));
          batch.push({ now });
          // Half the schedules one request per call; the others in runs of up to 8.
          if (schedule % 2 === 0 || random() < 0.3 || batch.length >= 8) await sendBatch(step);
        }
        await sendBatch(160);
      }
      expect(compared).toBe(24 * 160);
      // Both outcomes must be exercised, or agreeing would prove little.
      expect(refused).toBeGreaterThan(compared / 10);
      expect(refused).toBeLessThan(compared * 0.9);
    });
  }

  it("steps many principals and policies in one call as separate calls would", async () => {
    const connection = redisConnection(client);
    const random = seededRandom(77);
    const reference = memoryRateLimitStore();
    let now = Date.parse("2026-03-01T00:00:00Z");
    for (let call = 0; call < 150; call++) {
      now += Math.floor(random() * 400);
      const groups = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, g) => {
        const algorithm = algorithms[Math.floor(random() * algorithms.length)]!;
        const policy: RateLimitPolicy = {
          algorithm,
          limit: 1 + Math.floor(random() * 4),
          windowMs: 1_000,
        };
        const requests = Array.from({ length: 1 + Math.floor(random() * 5) }, () => ({ now }));
        const kind = (call + g) % 2 ? "key" : "user";
        return { bucket: `${kind}:multi-${(call + g) % 9}-${algorithm}`, policy, requests };
      });
      // One principal appears once per call (as the batcher groups them).
      const unique = [...new Map(groups.map((group) => [group.bucket, group])).values()];
      const expected: RateLimitDecision[][] = [];
      for (const group of unique) {
        const decisions = [];
        for (const request of group.requests)
          decisions.push(await reference.consume(group.bucket, group.policy, request.now));
        expected.push(decisions);
      }
      const results = await stepsOnRedis(connection, names, unique, "caller");
      expect(results.map((list) => list.map((r) => r.decision))).toEqual(expected);
    }
  });

  it("agrees at the documented sliding-window extreme: L at the window's last ms, then a stream", async () => {
    const connection = redisConnection(client);
    const policy: RateLimitPolicy = { algorithm: "sliding-window", limit: 10, windowMs: 1_000 };
    const reference = memoryRateLimitStore();
    const start = Date.parse("2026-03-01T00:00:00Z");
    const times = [
      ...Array.from({ length: 12 }, () => start - 1),
      ...Array.from({ length: 1_000 }, (_, i) => start + i),
    ];
    let admitted = 0;
    for (const now of times) {
      const expected = await reference.consume("edge", policy, now);
      const [results] = await stepsOnRedis(
        connection,
        names,
        [{ bucket: "edge", policy, requests: [{ now }] }],
        "caller",
      );
      const decision = results![0]!.decision;
      expect(decision).toEqual(expected);
      if (decision.allowed) admitted += 1;
    }
    // L + ⌊L(W − 2)/W⌋ = 10 + 9 in [start − 1, start + W − 1).
    expect(admitted).toBe(19);
  });
});

function sameDecision(a: RateLimitDecision, b: RateLimitDecision): boolean {
  return (
    a.allowed === b.allowed &&
    a.limit === b.limit &&
    a.remaining === b.remaining &&
    a.reset === b.reset &&
    a.retryAfter === b.retryAfter
  );
}
