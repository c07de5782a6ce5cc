/**
 * The layered script against the TypeScript original. Random schedules of one owner's keys, each
 * with its own stack of layers (a per-key limit, the owner's shared allowance, a daily, weekly or
 * monthly quota, credits with or without a refill, any algorithm; from a Friday, across a Monday
 * and a month's end), run through `memoryRateLimitStore`
 * (core's `stepLayer`) and through the Redis script on the caller's clock, with the key's own layer
 * in its usage hash (a single server) and in a key of its own (as on a cluster). Every decision of
 * every layer must be identical, reads included, and the usage counted must be every request's.
 * Requests go one per call and, as the store batches them, several keys' runs in one call.
 */
import type {
  LayeredDecision,
  LimitLayer,
  RateLimitAlgorithmName,
  RateLimitPolicy,
} from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisConnection } from "../src/client/connect.js";
import { keyNames } from "../src/key-names.js";
import { type LayerRequest, redisLayers } from "../src/rate-limit/redis-layers.js";
import { toKeyUsage } from "../src/usage/usage-fields.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";
import { seededRandom } from "./support/seeded-random.js";

const algorithms: RateLimitAlgorithmName[] = [
  "fixed-window",
  "sliding-window",
  "token-bucket",
  "gcra",
];
const dayMs = 86_400_000;

describe.skipIf(!redisAvailable)("layered limits: Lua and TypeScript decide alike", () => {
  let client: IORedis;
  const prefix = testPrefix("layered-differential");

  beforeAll(() => {
    client = new IORedis(localRedis);
  });
  afterAll(async () => {
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  for (const keyLayerInUsage of [true, false]) {
    const where = keyLayerInUsage ? "in its usage hash" : "in a key of its own";
    it(`identical decisions on random schedules, the key's own layer ${where}`, async () => {
      const names = keyNames(`${prefix}${keyLayerInUsage ? "hash" : "string"}:`);
      const layersOnRedis = redisLayers(redisConnection(client), names, "caller", {
        keyLayerInUsage,
      });
      let compared = 0;
      let refused = 0;
      const refusedBy = new Set<string>();
      for (let schedule = 0; schedule < 16; schedule++) {
        const random = seededRandom((keyLayerInUsage ? 5_000 : 6_000) + schedule);
        const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
        const small = () => 1 + Math.floor(random() * 6);
        const policy = (): RateLimitPolicy => ({
          algorithm: pick(algorithms),
          limit: small(),
          windowMs: pick([10, 1_000, 60_000]),
        });
        const reference = memoryRateLimitStore();
        const owner = `user:diff-${schedule}`;
        const ownerPolicy = policy();
        const quota = {
          limit: 3 + Math.floor(random() * 20),
          period: pick(["day", "week", "month"]),
        };
        let grantedAt = 1;
        const keyIds = ["a", "b", "c"].map((name) => `diff-${schedule}-${name}`);
        // Each key its own stack: every one has its own limit, the others come and go.
        const plans = new Map<string, LimitLayer[]>();
        const replan = (keyId: string) => {
          const layers: LimitLayer[] = [{ layer: "key", bucket: `key:${keyId}`, policy: policy() }];
          if (random() < 0.7)
            layers.push({ layer: "owner", bucket: `owner:${owner}`, policy: ownerPolicy });
          if (random() < 0.6) {
            layers.push({ layer: "quota", bucket: `quota:${owner}`, ...quota } as LimitLayer);
          }
          if (random() < 0.5) {
            const refill =
              random() < 0.5
                ? { amount: small() * 3, period: pick(["day", "week", "month"] as const) }
                : undefined;
            layers.push({
              layer: "credits",
              bucket: `credits:${keyId}`,
              cost: pick([0, 1, 1, 2, 3]),
              remaining: small() * 2,
              grantedAt: random() < 0.2 ? ++grantedAt : grantedAt,
              ...(refill ? { refill } : {}),
            });
          }
          plans.set(keyId, layers);
        };
        for (const keyId of keyIds) replan(keyId);
        // Near the end of a month, so that quotas and refills cross day and month boundaries. The
        // clock only moves on: once a state has expired, memory's sweep may or may not have
        // dropped it, so a clock going back past that has no one right answer to compare.
        let now = Date.parse("2026-01-30T23:59:50Z") + Math.floor(random() * 10_000);
        const usageCounted = new Map<string, number>();

        let batch: LayerRequest[] = [];
        let expected: LayeredDecision[] = [];
        const send = async (step: number) => {
          if (batch.length === 0) return;
          const decisions = await layersOnRedis("consume", batch);
          decisions.forEach((decision, index) => {
            expect(decision, `schedule ${schedule}, step ${step}, request ${index}`).toEqual(
              expected[index],
            );
            compared += 1;
            if (!decision.allowed) {
              refused += 1;
              for (const layer of decision.layers) if (!layer.allowed) refusedBy.add(layer.layer);
            }
          });
          batch = [];
          expected = [];
        };

        for (let step = 0; step < 120; step++) {
          const roll = random();
          if (roll < 0.4) now += 0;
          else if (roll < 0.65) now += 1 + Math.floor(random() * 5);
          else if (roll < 0.85) now += Math.floor(random() * 2_000);
          else if (roll < 0.95) now += Math.floor(random() * 2 * dayMs);
          else {
            await send(step);
            replan(pick(keyIds));
          }
          // A run of one key's requests. The script steps a call's requests grouped by key, so a
          // key already earlier in this call starts a new call (its order is the reference's).
          const keyId = pick(keyIds);
          const layers = plans.get(keyId)!;
          const last = batch[batch.length - 1];
          if (
            last &&
            last.layers !== layers &&
            batch.some((request) => request.layers === layers)
          ) {
            await send(step);
          }
          for (let run = 1 + Math.floor(random() * 3); run > 0; run--) {
            const usage =
              keyLayerInUsage && random() < 0.7
                ? {
                    keyId,
                    method: "GET",
                    route: "/diff",
                    day: new Date(now).toISOString().slice(0, 10),
                  }
                : undefined;
            if (usage) usageCounted.set(keyId, (usageCounted.get(keyId) ?? 0) + 1);
            expected.push(await reference.consumeLayers({ owner, layers, now }));
            batch.push({ owner, layers, now, usage });
          }
          if (schedule % 2 === 0 || random() < 0.4 || batch.length >= 12) await send(step);
          if (random() < 0.1) {
            await send(step);
            const readKey = pick(keyIds);
            const read = { owner, layers: plans.get(readKey)!, now };
            const [decision] = await layersOnRedis("read", [read]);
            expect(decision!.layers, `read at schedule ${schedule}, step ${step}`).toEqual(
              await reference.readLayers(read),
            );
          }
        }
        await send(120);
        for (const keyId of keyIds) {
          const usage = toKeyUsage(keyId, await client.hgetall(names.usage(keyId)).then(flat));
          expect(usage.totalRequests).toBe(usageCounted.get(keyId) ?? 0);
        }
      }
      // Both outcomes, and a refusal by each layer, must be exercised, or agreeing proves little.
      expect(refused).toBeGreaterThan(compared / 10);
      expect(refused).toBeLessThan(compared * 0.9);
      expect([...refusedBy].sort()).toEqual(["credits", "key", "owner", "quota"]);
    });
  }

  it("counts usage exactly when one key's requests pass through different layers in one call", async () => {
    // Two groups of one call share the key's usage hash: the first reads it with its own fields,
    // the second counts in fields the hash was not read with (another route, another day), which
    // must start from their stored values.
    const names = keyNames(`${prefix}two-groups:`);
    const layersOnRedis = redisLayers(redisConnection(client), names, "caller", {
      keyLayerInUsage: true,
    });
    const keyId = "two-groups";
    const owner = "user:two-groups";
    const layersWith = (limit: number): LimitLayer[] => [
      {
        layer: "key",
        bucket: `key:${keyId}`,
        policy: { algorithm: "gcra", limit, windowMs: 1_000 },
      },
    ];
    const [before, after] = [layersWith(100), layersWith(200)];
    const now = Date.parse("2026-03-01T00:00:00Z");
    const use = (route: string, day: string) => ({ keyId, method: "GET", route, day });
    await layersOnRedis("consume", [
      { owner, layers: before, now, usage: use("/b", "2026-03-02") },
    ]);
    const decisions = await layersOnRedis("consume", [
      { owner, layers: before, now, usage: use("/a", "2026-03-01") },
      { owner, layers: after, now, usage: use("/b", "2026-03-01") },
      { owner, layers: after, now, usage: use("/a", "2026-03-02") },
    ]);
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true]);
    const usage = toKeyUsage(keyId, await client.hgetall(names.usage(keyId)).then(flat));
    expect(usage.totalRequests).toBe(4);
    expect(usage.endpoints).toEqual(
      expect.arrayContaining([
        { method: "GET", route: "/a", count: 2 },
        { method: "GET", route: "/b", count: 2 },
      ]),
    );
    expect(usage.daily).toEqual(
      expect.arrayContaining([
        { date: "2026-03-01", count: 2 },
        { date: "2026-03-02", count: 2 },
      ]),
    );
  });
});

function flat(hash: Record<string, string>): string[] {
  return Object.entries(hash).flat();
}
