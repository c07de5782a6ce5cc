/**
 * Budgets' holds kept as layers on Redis (`hold-layer.ts` in `@keyward/core/budgets`): a hold is
 * a credits layer of its owner's limits, filled by its reservation's limit script and taken by the
 * step that gives its rest back. Shown here against the local Redis (and a private one to stall):
 * the record goes out ahead of the reservation's script on the same connection; a hold ends once,
 * whichever instance or sweep ends it; nothing is left behind; a step given up on is undone whole,
 * and an undo that would give a hold back twice undoes nothing.
 */
import { createKeyward, type Keyward, manualClock } from "@keyward/core";
import { type BudgetsApi, budgets, type Hold, type HoldOutcome } from "@keyward/core/budgets";
import IORedis from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { redisHoldStore, redisStore } from "../src/index.js";
import { voidChargesScript } from "../src/lua/void-charges.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { startRedisServer } from "./support/redis-servers.js";
import { deletePrefix, keysUnder } from "./support/scan.js";

const scopes = ["completions:write"];
const route = "POST /api/v1/completions";
const ttlMs = 10 * 60 * 1000;
type WithBudgets = Keyward & { budgets: BudgetsApi };

describe.skipIf(!redisAvailable)("budgets' holds kept as layers on Redis", () => {
  const prefix = testPrefix("hold-layers");
  const clients: IORedis[] = [];
  const instances: WithBudgets[] = [];
  const admin = new IORedis(localRedis);

  afterAll(async () => {
    for (const keyward of instances) await keyward.close();
    for (const client of clients) client.disconnect();
    await deletePrefix(admin, prefix);
    admin.disconnect();
  });

  /** An instance on its own connection, on `clock`, holds and limits under one prefix. */
  const instance = (
    clock: ReturnType<typeof manualClock>,
    options: { port?: number; budgets?: Parameters<typeof budgets>[0] } = {},
  ) => {
    const client = new IORedis({ host: "127.0.0.1", port: options.port ?? 6379 });
    client.on("error", () => {});
    clients.push(client);
    const keyward = createKeyward({
      store: redisStore({
        client,
        prefix,
        keys: true,
        time: "caller",
        ...(options.port ? { timeoutMs: 300, circuitBreaker: false } : {}),
      }),
      scopes: { "completions:write": "Write completions" },
      tiers: { free: { rateLimit: { limit: 1_000_000, window: "1m" } } },
      clock,
      jwt: false,
      logger: false,
      features: [
        budgets({
          ...options.budgets,
          holds: redisHoldStore({ client, prefix, ...(options.port ? { timeoutMs: 300 } : {}) }),
          sweepInterval: false,
        }),
      ],
    }) as WithBudgets;
    instances.push(keyward);
    return { keyward, client };
  };

  const agentKey = async (keyward: WithBudgets, credits: number) => {
    const ownerId = `owner-${crypto.randomUUID()}`;
    const created = await keyward.keys.create({
      ownerId,
      accountTier: "free",
      name: "agent",
      scopes,
      tier: "free",
    });
    await keyward.keys.setLimits(created.id, { credits: { remaining: credits } });
    const header = `Bearer ${created.key}`;
    return {
      ownerId,
      id: created.id,
      reserve: (on: WithBudgets, cost: number) =>
        on.budgets.reserve(header, { scopes, route, cost }),
      credits: async () => (await keyward.keys.usage(ownerId, created.id)).credits?.remaining,
      held: async () => (await keyward.budgets.usage(created.id))!.held,
      holdLayers: () => keysUnder(admin, `${prefix}layer:{user:${ownerId}}:hold:`),
    };
  };
  const holdOf = (result: { ok: boolean }): Hold => {
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
    return (result as unknown as { hold: Hold }).hold;
  };
  const records = () => admin.hlen(`${prefix}{holds}:record`);

  it("a hold is its own layer until it ends, and nothing of it is left once it did", async () => {
    const clock = manualClock(Date.parse("2026-12-07T10:00:00Z"));
    const { keyward } = instance(clock);
    const key = await agentKey(keyward, 1_000);
    const settled = holdOf(await key.reserve(keyward, 400));
    const released = holdOf(await key.reserve(keyward, 300));
    const swept = holdOf(await key.reserve(keyward, 200));
    expect(await key.credits()).toBe(100);
    expect(await key.held()).toBe(900);
    // Each hold's balance is a layer of the owner's, beside the key's credits.
    const layers = await key.holdLayers();
    expect(layers.sort()).toEqual(
      [settled, released, swept]
        .map((hold) => `${prefix}layer:{user:${key.ownerId}}:hold:${hold.id}`)
        .sort(),
    );
    expect(await admin.get(`${prefix}layer:{user:${key.ownerId}}:hold:${settled.id}`)).toBe(
      "0:400:0",
    );
    // Refused by the key's credits: nothing is held, and its record goes.
    expect((await key.reserve(keyward, 101)).ok).toBe(false);
    expect(await settled.settle(150)).toEqual({
      done: true,
      spent: 150,
      returned: 250,
      overrun: 0,
    });
    expect(await released.release()).toMatchObject({ done: true, returned: 300 });
    clock.advance(ttlMs);
    expect(await keyward.budgets.releaseExpired()).toBe(1);
    expect(await swept.settle(10)).toEqual({ done: false, reason: "gone" });
    expect(await key.credits()).toBe(850);
    expect(await key.held()).toBe(0);
    expect(await key.holdLayers()).toEqual([]);
    await expect.poll(records, { timeout: 30_000 }).toBe(0);
  });

  it("an owner's budget on a key's report counts every key's holds as held", async () => {
    const clock = manualClock(Date.parse("2026-12-07T10:00:00Z"));
    const { keyward } = instance(clock, { budgets: { perOwner: { limit: 1_000, period: "day" } } });
    const first = await agentKey(keyward, 10_000);
    const created = await keyward.keys.create({
      ownerId: first.ownerId,
      accountTier: "free",
      name: "second",
      scopes,
      tier: "free",
    });
    const second = `Bearer ${created.key}`;
    const a = holdOf(await first.reserve(keyward, 300));
    const b = holdOf(await keyward.budgets.reserve(second, { scopes, route, cost: 200 }));
    expect((await keyward.budgets.usage(first.id))!).toMatchObject({
      held: 300,
      owner: { limit: 1_000, held: 500, spent: 0, left: 500 },
    });
    await b.settle(150);
    await a.release();
    expect((await keyward.budgets.usage(created.id))!).toMatchObject({
      held: 0,
      owner: { held: 0, spent: 150, left: 850 },
    });
  });

  it("sends the hold's record ahead of the reservation's script, on the same connection", async () => {
    const clock = manualClock(Date.parse("2026-12-07T10:00:00Z"));
    const { keyward } = instance(clock);
    const key = await agentKey(keyward, 1_000);
    holdOf(await key.reserve(keyward, 1)); // the scripts loaded, the key cached
    const monitor = await admin.monitor();
    const commands: string[] = [];
    // The calls only: MONITOR also shows what each script runs.
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (/^eval/i.test(args[0] ?? "")) commands.push(args.join(" "));
    });
    // Watching for sure before the reservation: a call sent after MONITOR, seen by it.
    const marker = `marker-${crypto.randomUUID()}`;
    await expect
      .poll(async () => {
        await admin.eval("return 1", 0, marker);
        return commands.some((command) => command.includes(marker));
      })
      .toBe(true);
    const hold = holdOf(await key.reserve(keyward, 50));
    await hold.settle(20);
    await expect
      .poll(() => commands.filter((command) => command.includes(hold.id)).length)
      .toBeGreaterThanOrEqual(4);
    monitor.disconnect();
    const mentioning = commands.filter((command) => command.includes(hold.id));
    // The record (its JSON names the hold's layer) goes first; then the reservation's script,
    // which fills the layer; then the settle's step, which takes it; then the record's removal.
    expect(mentioning[0]).toContain(`"ownLayer":"hold:${hold.id}"`);
    expect(mentioning[1]).toContain(`layer:{user:${key.ownerId}}:hold:${hold.id}`);
    expect(mentioning[1]).toContain(` -50 0 0`);
    expect(mentioning[2]).toContain(`layer:{user:${key.ownerId}}:hold:${hold.id}`);
    expect(mentioning[2]).toContain(` 50 0 0`);
    expect(await key.credits()).toBe(1_000 - 1 - 20);
  });

  it("a hold ends once, whichever of two instances and their sweeps ends it", async () => {
    const clock = manualClock(Date.parse("2026-12-07T10:00:00Z"));
    const a = instance(clock).keyward;
    const b = instance(clock).keyward;
    const key = await agentKey(a, 100_000);
    const holds: Hold[] = [];
    for (let i = 0; i < 40; i++) holds.push(holdOf(await key.reserve(i % 2 ? a : b, 1_000)));
    clock.advance(ttlMs);
    const outcomes = await Promise.all(
      holds.map(async (hold, index) => {
        const ends: Promise<HoldOutcome>[] = [
          hold.settle(100 + index),
          b.budgets.settle(hold.id, 500),
          a.budgets.release(hold.id),
        ];
        const swept =
          index % 10 === 0 ? [a.budgets.releaseExpired(), b.budgets.releaseExpired()] : [];
        await Promise.all(swept);
        return Promise.all(ends);
      }),
    );
    let spent = 0;
    for (const ends of outcomes) {
      // At most one of the three ended it (none when a sweep came first), never two.
      const done = ends.filter((outcome) => outcome.done);
      expect(done.length).toBeLessThanOrEqual(1);
      for (const outcome of done) if (outcome.done) spent += outcome.spent;
    }
    // Holds no end reached were given back by a sweep (each once): the credits are exact.
    expect(await a.budgets.releaseExpired()).toBe(0);
    expect(await key.credits()).toBe(100_000 - spent);
    expect(await key.held()).toBe(0);
    expect(await key.holdLayers()).toEqual([]);
    await expect.poll(records, { timeout: 30_000 }).toBe(0);
  });

  it("a settle given up on is undone whole: the hold is live again, and its TTL gives it back once", async () => {
    const server = await startRedisServer();
    const pauser = new IORedis({ host: "127.0.0.1", port: server.port });
    const reader = new IORedis({ host: "127.0.0.1", port: server.port });
    const clock = manualClock(Date.parse("2026-12-07T10:00:00Z"));
    const { keyward } = instance(clock, { port: server.port });
    try {
      const key = await agentKey(keyward, 1_000);
      const hold = holdOf(await key.reserve(keyward, 600));
      // Writes wait until unpaused: the settle's step outlives its deadline and is given up on.
      await pauser.call("CLIENT", "PAUSE", "60000", "WRITE");
      await expect(hold.settle(100)).rejects.toThrow();
      // The hold store's own calls have a deadline too: a settle by id reads the record first.
      await expect(keyward.budgets.settle(hold.id, 100)).rejects.toThrow(
        "redisHoldStore: no answer from Redis within 300 ms",
      );
      // A reservation given up on too: its record and charge land late, and are undone.
      const late = await key.reserve(keyward, 50);
      expect(late.ok).toBe(false);
      await pauser.call("CLIENT", "UNPAUSE");
      // Once the voids landed: the settle's step ran, then was undone whole, so the hold holds
      // all of it again (not its rest given back); the late reservation holds nothing.
      const standing = async () => ({ credits: await key.credits(), held: await key.held() });
      await expect.poll(standing, { timeout: 30_000 }).toEqual({ credits: 400, held: 600 });
      expect(await reader.get(`${prefix}layer:{user:${key.ownerId}}:hold:${hold.id}`)).toBe(
        "0:600:0",
      );
      // Its record stayed: the sweep gives it back at its TTL, once.
      clock.advance(ttlMs);
      const released = await keyward.budgets.releaseExpired();
      expect(released).toBe(1);
      expect(await keyward.budgets.releaseExpired()).toBe(0);
      expect(await standing()).toEqual({ credits: 1_000, held: 0 });
      expect(await keysUnder(reader, `${prefix}layer:{user:${key.ownerId}}:hold:`)).toEqual([]);
      await expect.poll(() => reader.hlen(`${prefix}{holds}:record`), { timeout: 30_000 }).toBe(0);
    } finally {
      await pauser.call("CLIENT", "UNPAUSE").catch(() => {});
      // Closed before its server stops (the other instances close after the file).
      instances.splice(instances.indexOf(keyward), 1);
      await keyward.close();
      pauser.disconnect();
      reader.disconnect();
      await server.stop();
    }
  }, 120_000);

  it("a void that would give a hold back twice undoes nothing; one that lands first undoes all", async () => {
    const owner = `user:void-${crypto.randomUUID()}`;
    const credits = `${prefix}layer:{${owner}}:credits:k`;
    const holdLayer = `${prefix}layer:{${owner}}:hold:h`;
    const paid = `${prefix}layer:{${owner}}:paid:1`;
    const voided = `${prefix}layer:{${owner}}:void:1`;
    // What a reservation of 50 from 100 credits (granted at 5) charged: the credits and the
    // hold's own layer, filled.
    const marker = `${credits}\tc\t50\t5\t0\t100\n${holdLayer}\tc\t-50\t0\t0\t0`;
    const undo = () =>
      admin.eval(voidChargesScript.source, 4, paid, voided, credits, holdLayer, "3600000");

    // The sweep ended the hold first (its layer taken and dropped, the 50 given back): undoing the
    // reservation now would give the 50 back again. Nothing is undone.
    await admin.set(credits, "5:100:0");
    await admin.set(paid, marker);
    expect(await undo()).toBe(0);
    expect(await admin.get(credits)).toBe("5:100:0");
    expect(await admin.exists(holdLayer)).toBe(0);
    expect(await admin.exists(paid)).toBe(0);

    // The void landed first: both charges undone, the hold's layer back to nothing and dropped.
    await admin.set(credits, "5:50:0");
    await admin.set(holdLayer, "0:50:0");
    await admin.set(paid, marker);
    await admin.del(voided);
    expect(await undo()).toBe(2);
    expect(await admin.get(credits)).toBe("5:100:0");
    expect(await admin.exists(holdLayer)).toBe(0);
  });
});
