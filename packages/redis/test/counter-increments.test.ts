/**
 * Counter increments ride the layered limit charge (`CounterIncrement` in `@keyward/core`): added in
 * the same atomic step, only for admitted requests, on the real Redis (batched calls included); and
 * through `verify`, a request refused for its scopes adds nothing. The memory store does not apply
 * them (in one process a feature's own write costs no round trip): it says so.
 */
import {
  type ChargeStep,
  type CounterIncrement,
  createKeyward,
  type KeywardFeature,
  type LimitLayer,
  type RateLimitStore,
} from "@keyward/core";
import { memoryRateLimitStore, toPolicy } from "@keyward/core/toolkit";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

// Redis drops a counter at its `expireAt` by its own clock, so the callers' time is today's: a fixed
// date that has since passed makes PEXPIREAT delete the counter the test then reads.
const now = Date.now();
const owner = "user:alice";
const layers: LimitLayer[] = [
  { layer: "key", bucket: "key:k1", policy: toPolicy({ limit: 30, window: "1m" }) },
  { layer: "quota", bucket: `quota:${owner}`, limit: 1000, period: "day" },
];
const increments: CounterIncrement[] = [
  { counter: "test:w1", field: "requests", by: 1, expireAt: now + 3_600_000 },
  { counter: "test:w1", field: "credits", by: 3 },
];

async function chargeForty(limits: RateLimitStore) {
  const decisions = await Promise.all(
    Array.from({ length: 40 }, () => limits.consumeLayers!({ owner, layers, now, increments })),
  );
  return decisions.filter((decision) => decision.allowed).length;
}

describe("counter increments on the memory store", () => {
  it("are not applied, and the store says so: the charge decides as without them", async () => {
    const limits = memoryRateLimitStore();
    expect(limits.appliesIncrements).not.toBe(true);
    expect(limits.readCounter).toBeUndefined();
    expect(await chargeForty(limits)).toBe(30);
  });
});

describe.skipIf(!redisAvailable)("counter increments on Redis", () => {
  const prefix = testPrefix("increments");
  let client: IORedis;
  let store: ReturnType<typeof redisStore>;
  beforeAll(() => {
    client = new IORedis(localRedis);
    store = redisStore({ client, prefix, time: "caller" });
  });
  afterAll(async () => {
    await store.close();
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  it("adds in the layers' script for the admitted requests only, 40 at once in batched calls", async () => {
    const limits = store.rateLimits;
    expect(limits.appliesIncrements).toBe(true);
    expect(await chargeForty(limits)).toBe(30);
    expect(await limits.readCounter!(owner, "test:w1", now)).toEqual({ requests: 30, credits: 90 });
    const key = `${prefix}counter:{${owner}}:test:w1`;
    expect(await client.hgetall(key)).toEqual({ requests: "30", credits: "90" });
    expect(await client.pexpiretime(key)).toBe(now + 3_600_000);
    // A read adds nothing.
    await limits.readLayers!({ owner, layers, now });
    expect(await limits.readCounter!(owner, "test:w1", now)).toEqual({ requests: 30, credits: 90 });
  });
});

/** A feature whose charge step adds one to `seen:<key id>` for every request it charges. */
function countingFeature(): KeywardFeature<"counting"> {
  const step: ChargeStep = {
    name: "counting",
    plan: (plan, request) => ({
      ...plan,
      increments: [{ counter: "seen", field: request.key.id, by: 1 }],
    }),
  };
  return { name: "counting", extends: { verify: { charge: [step] } }, install: () => ({}) };
}

describe.skipIf(!redisAvailable)("increments through verify, on Redis", () => {
  it("a request refused for its scopes or its limit adds nothing", async () => {
    const client = new IORedis(localRedis);
    const prefix = testPrefix("increments-verify");
    const store = redisStore({ client, prefix, keys: true });
    const keyward = createKeyward({
      store,
      scopes: { "profile:read": "Read profiles", "orders:read": "Read orders" },
      tiers: { free: { rateLimit: { limit: 3, window: "1m" } } },
      jwt: { secret: "counter-increments-test-secret-32-bytes!" },
      logger: false,
      features: [countingFeature()],
    });
    const key = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "counted",
      scopes: ["profile:read"],
      tier: "free",
    });
    const header = `Bearer ${key.key}`;
    // The refused one counts against the rate limit (an attempt), so the limit of 3 admits two more.
    expect((await keyward.verify(header, { scopes: ["orders:read"] })).ok).toBe(false);
    expect((await keyward.verify(header, { scopes: ["profile:read"] })).ok).toBe(true);
    expect((await keyward.verify(header, { scopes: ["profile:read"] })).ok).toBe(true);
    expect((await keyward.verify(header, { scopes: ["profile:read"] })).ok).toBe(false); // limited
    const counted = await store.rateLimits.readCounter!("user:alice", "seen", Date.now());
    expect(counted).toEqual({ [key.id]: 2 });
    await keyward.close();
    await deletePrefix(client, prefix);
    client.disconnect();
  });
});
