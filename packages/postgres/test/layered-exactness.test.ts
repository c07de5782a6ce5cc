/**
 * Quotas and credits exact across processes on PostgreSQL alone: four worker processes, each its
 * own Keyward instance and pool (`combineStores(postgresStore, memoryStore())`), send 3,000 requests
 * at once with one owner's three keys. The monthly quota and each key's credits admit exactly their
 * limit, no credit is overspent or lost, and both come back exactly at the UTC period boundary (the
 * workers run on a fake clock set per round). Rate limits, the owner's shared allowance included,
 * stay per instance here, as documented: only Redis shares them.
 */
import { fileURLToPath } from "node:url";
import {
  combineStores,
  createKeyward,
  type Keyward,
  type KeywardConfig,
  manualClock,
  memoryStore,
} from "@keyward/core";
import {
  type LayeredWorkers,
  ownerWithThreeKeys,
  startLayeredWorkers,
} from "@keyward/testing/layered-exactness";
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate, postgresStore } from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  serverUrl,
  uniqueSchema,
} from "./support/databases.js";

const workers = 4;
const perWorker = 750;
const beforeMidnight = Date.parse("2026-07-31T23:59:50Z");
const afterMidnight = Date.parse("2026-08-01T00:00:05Z");
const open = { limit: 1_000_000, window: "1h" } as const;

describeOnServer(`layered limits on PostgreSQL: ${workers} processes, one owner's keys`, () => {
  let client: pg.Pool;
  let pool: LayeredWorkers;
  const schema = uniqueSchema("layered");

  beforeAll(async () => {
    client = serverPool();
    await migrate(client, { schema });
    pool = await startLayeredWorkers({
      workerFile: fileURLToPath(new URL("./support/layered-worker.ts", import.meta.url)),
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { KEYWARD_TEST_DATABASE_URL: serverUrl },
      workers,
      perWorker,
      where: { schema },
    });
  }, 60_000);
  afterAll(async () => {
    pool?.close();
    await dropSchema(client, schema);
    await client.end();
  });

  const admin = (tiers: KeywardConfig["tiers"], now: number): Keyward =>
    createKeyward({
      store: combineStores(
        postgresStore({ client, schema, cache: false, invalidation: false }),
        memoryStore(),
      ),
      scopes: { "profile:read": "Read" },
      tiers,
      clock: manualClock(now),
      jwt: false,
      logger: false,
    });
  it("the monthly quota admits exactly its limit, and exactly again in the next month", {
    timeout: 180_000,
  }, async () => {
    const tiers = { free: { rateLimit: open, quota: { limit: 700, period: "month" as const } } };
    const keyward = admin(tiers, beforeMidnight);
    const { ownerId, keys } = await ownerWithThreeKeys(keyward);
    const secrets = keys.map((key) => ({ secret: key.key, cost: 1 }));
    const july = await pool.round({ now: beforeMidnight, tiers, keys: secrets });
    expect(july.total).toBe(700);
    expect(july.refusals).toEqual({ "Monthly quota exceeded": 2_300 });
    expect((await keyward.keys.usage(ownerId, keys[0]!.id)).quota?.remaining).toBe(0);
    const august = await pool.round({ now: afterMidnight, tiers, keys: secrets });
    expect(august.total).toBe(700);
  });

  it("credits: never overspent, none lost, refilled exactly at the day boundary", {
    timeout: 180_000,
  }, async () => {
    const tiers = { free: { rateLimit: open } };
    const keyward = admin(tiers, beforeMidnight);
    const { ownerId, keys } = await ownerWithThreeKeys(keyward);
    await keyward.keys.setLimits(keys[0]!.id, { credits: { remaining: 500 } });
    await keyward.keys.setLimits(keys[1]!.id, { credits: { remaining: 301 } });
    await keyward.keys.setLimits(keys[2]!.id, {
      credits: { remaining: 250, refill: { amount: 120, period: "day" } },
    });
    const costs = [1, 2, 1];
    const secrets = keys.map((key, index) => ({ secret: key.key, cost: costs[index]! }));
    const first = await pool.round({ now: beforeMidnight, tiers, keys: secrets });
    // 1,000 requests per key: 500 × 1 credit, 150 × 2 credits (1 left over), 250 × 1 credit.
    expect(first.admitted).toEqual([500, 150, 250]);
    const remaining = async () =>
      Promise.all(
        keys.map(async (key) => (await keyward.keys.usage(ownerId, key.id)).credits?.remaining),
      );
    expect(await remaining()).toEqual([0, 1, 0]);
    const next = await pool.round({ now: afterMidnight, tiers, keys: secrets });
    expect(next.admitted).toEqual([0, 0, 120]);
    const after = admin(tiers, afterMidnight);
    expect((await after.keys.usage(ownerId, keys[2]!.id)).credits).toEqual({
      remaining: 0,
      refill: { amount: 120, period: "day" },
      refillsAt: "2026-08-02T00:00:00.000Z",
    });
  });
  it("a request refused for a scope spends no credits and no quota: only served ones do", {
    timeout: 180_000,
  }, async () => {
    const tiers = {
      free: { rateLimit: open, quota: { limit: 100_000, period: "month" as const } },
    };
    const keyward = admin(tiers, beforeMidnight);
    const { ownerId, keys } = await ownerWithThreeKeys(keyward);
    await keyward.keys.setLimits(keys[0]!.id, { credits: { remaining: 300 } });
    // One key, two lanes: a route it may call, and one that needs a scope it lacks.
    const lanes = [
      { secret: keys[0]!.key, cost: 1, scopes: ["profile:read"] },
      { secret: keys[0]!.key, cost: 1, scopes: ["profile:write"] },
    ];
    const { admitted, refusals } = await pool.round({ now: beforeMidnight, tiers, keys: lanes });
    const attempts = (workers * perWorker) / 2;
    expect(admitted).toEqual([300, 0]);
    expect(refusals).toEqual({
      "API key lacks the required scope: profile:write": attempts,
      "API key has no credits left": attempts - 300,
    });
    const usage = await keyward.keys.usage(ownerId, keys[0]!.id);
    expect(usage.credits?.remaining).toBe(0);
    // The quota counted the 300 served requests, none of the refused ones.
    expect(usage.quota?.remaining).toBe(100_000 - 300);
  });
});
