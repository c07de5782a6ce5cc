/**
 * Only served requests are charged, through a Redis stall. A private redis-server is paused
 * (`CLIENT PAUSE … WRITE`: every script call waits, as behind a slow command or a failover) while
 * two Keyward instances, each with its own connection, keep sending requests with one key that has
 * credits and a quota. Requests whose call outlives the store's deadline are answered 500; Redis runs
 * those calls once it resumes. Their charges must be undone: at the end, credits and quota have
 * spent exactly one per request answered 200, on both instances together; and so has a counter
 * the requests' charge adds to (`CounterIncrement`: metering's ledger rides the same script).
 */
import { type ChargeStep, createKeyward, type Keyward, type KeywardFeature } from "@keyward/core";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { type RedisServer, startRedisServer } from "./support/redis-servers.js";

const tiers = {
  free: {
    rateLimit: { limit: 1_000_000, window: "1h" },
    quota: { limit: 1_000_000, period: "month" as const },
  },
};
const credits = 10_000;

/** Adds one to the owner's counter `served` with every charge (as metering's ledger does). */
function servedCounter(): KeywardFeature<"served"> {
  const increments = [{ counter: "served", field: "requests", by: 1 }];
  const step: ChargeStep = { name: "served", plan: (plan) => ({ ...plan, increments }) };
  return { name: "served", extends: { verify: { charge: [step] } }, install: () => ({}) };
}

describe("a Redis stall charges nothing for the requests it turned into 500s", () => {
  let server: RedisServer;
  const clients: IORedis[] = [];
  const instances: Keyward[] = [];
  // Creates the key and reads its usage with a deadline no busy machine reaches: only the lanes'
  // requests run on the short deadline the stalls are measured against.
  let setup: Keyward;

  beforeAll(async () => {
    server = await startRedisServer();
    const setupClient = new IORedis({ host: "127.0.0.1", port: server.port });
    setupClient.on("error", () => {});
    clients.push(setupClient);
    setup = createKeyward({
      store: redisStore({ client: setupClient, keys: true, timeoutMs: 30_000 }),
      scopes: { "profile:read": "Read" },
      tiers,
      jwt: false,
      logger: false,
    });
    for (let i = 0; i < 2; i++) {
      const client = new IORedis({ host: "127.0.0.1", port: server.port });
      client.on("error", () => {});
      clients.push(client);
      instances.push(
        createKeyward({
          // The breaker off: every request during the stall goes to Redis and times out.
          store: redisStore({ client, keys: true, timeoutMs: 100, circuitBreaker: false }),
          scopes: { "profile:read": "Read" },
          tiers,
          jwt: false,
          logger: false,
          features: [servedCounter()],
        }),
      );
    }
  }, 30_000);
  afterAll(async () => {
    for (const keyward of [...instances, setup]) await keyward?.close();
    for (const client of clients) client.disconnect();
    await server?.stop();
  });

  it("spends credits and quota exactly for the requests answered 200", async () => {
    const [first, second] = instances as [Keyward, Keyward];
    const created = await setup.keys.create({
      ownerId: "stalled-owner",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    await setup.keys.setLimits(created.id, { credits: { remaining: credits } });
    const counts = { ok: 0, failed: 0, other: 0 };
    let running = true;
    const lane = async (keyward: Keyward) => {
      while (running) {
        const result = await keyward.verify(`Bearer ${created.key}`, { route: "GET /p" });
        if (result.ok) counts.ok++;
        else if (result.error.status === 500) counts.failed++;
        else counts.other++;
      }
    };
    const lanes = [first, second, first, second].map(lane);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const pauser = new IORedis({ host: "127.0.0.1", port: server.port });
    // Three stalls: each longer than the deadline, so queued calls run after their callers gave up.
    for (let stall = 0; stall < 3; stall++) {
      await pauser.call("CLIENT", "PAUSE", "400", "WRITE");
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
    running = false;
    await Promise.all(lanes);
    pauser.disconnect();
    expect(counts.failed, "requests answered 500 during the stalls").toBeGreaterThan(0);
    expect(counts.other).toBe(0);
    // The voids run in the background: wait until every charge of a given-up call is undone.
    const spent = async () => {
      const usage = await setup.keys.usage("stalled-owner", created.id);
      return {
        credits: credits - (usage.credits?.remaining ?? 0),
        quota: 1_000_000 - (usage.quota?.remaining ?? 0),
      };
    };
    await expect.poll(spent, { timeout: 60_000 }).toEqual({ credits: counts.ok, quota: counts.ok });
    const served = async () =>
      Number(await clients[0]!.hget("keyward:counter:{user:stalled-owner}:served", "requests"));
    await expect.poll(served, { timeout: 60_000 }).toBe(counts.ok);
  }, 120_000);
});
