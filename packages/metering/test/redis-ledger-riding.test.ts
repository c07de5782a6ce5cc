/**
 * The Redis ledger riding the limits' script, against the real Redis: a served request's usage is
 * added by the same one script call that charges its limits (the commands Redis ran are counted:
 * metering adds none), refused requests (429, 403 for scopes) add nothing, the credits a request is
 * charged are its `credits` meter, and the exporter sends exactly the served totals of closed windows.
 */
import { randomUUID } from "node:crypto";
import { createKeyward, type KeywardFeature, manualClock } from "@keyward/core";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import { afterAll, expect, it } from "vitest";
import { type MeterEvent, type MeterSink, metering, redisLedger } from "../src/index.js";

const client = new IORedis({ host: "127.0.0.1", port: 6379 });
const prefix = `test-riding-${randomUUID()}:`;
afterAll(async () => {
  const keys = await client.keys(`${prefix}*`);
  if (keys.length > 0) await client.del(...keys);
  client.disconnect();
});

/**
 * The commands Redis receives that name this test's keys, by `MONITOR` (the server is shared with
 * other tests, so its global command counts would not do): a script call names its keys.
 */
async function watchCommands() {
  const monitor = await new IORedis({ host: "127.0.0.1", port: 6379 }).monitor();
  const seen: string[] = [];
  // Only the commands clients sent: those a script runs come with the source "lua".
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (source === "lua" || !args.some((arg) => String(arg).startsWith(prefix))) return;
    // A limit charge's call names its charge markers (`…:paid:…`); the other calls look keys up
    // (how many depends on the verification cache's timing, not on metering).
    const charge = args.some((arg) => String(arg).includes(":paid:"));
    seen.push(charge ? "charge" : String(args[0]).toLowerCase());
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    async stop() {
      // Let the last commands' lines arrive.
      await new Promise((resolve) => setTimeout(resolve, 200));
      monitor.disconnect();
      return seen;
    },
  };
}

it("adds served usage in the limits' script call, exports it exactly, refused requests unbilled", async () => {
  const clock = manualClock(Date.parse("2026-12-07T12:00:10Z"));
  const events: MeterEvent[] = [];
  const sink: MeterSink = {
    name: "recorded",
    meters: ["requests", "credits"],
    batchSize: 100,
    async send(sent) {
      events.push(...sent);
      return sent.map(() => ({ kind: "acknowledged" as const }));
    },
  };
  const ledger = redisLedger({ client, prefix });
  const store = redisStore({ client, prefix, keys: true, time: "caller", timeoutMs: 30_000 });
  const instance = <Features extends KeywardFeature<string, unknown>[]>(features: Features) =>
    createKeyward({
      store,
      scopes: { "profile:read": "Read profiles", "orders:read": "Read orders" },
      tiers: { free: { rateLimit: { limit: 8, window: "1h" } } },
      clock,
      jwt: false,
      logger: false,
      features,
    });
  const keyward = instance([
    metering({ ledger, exporters: [sink], window: "1m", exportEvery: false }),
  ]);
  const unmetered = instance([]);

  /** Nine requests of a new key of `ownerId`: the commands they sent, and which were admitted. */
  const nineRequests = async (through: typeof keyward | typeof unmetered, ownerId: string) => {
    const created = await through.keys.create({
      ownerId,
      accountTier: "free",
      name: "billed",
      scopes: ["profile:read"],
      tier: "free",
    });
    await through.keys.setLimits(created.id, { credits: { remaining: 1_000 } });
    const header = `Bearer ${created.key}`;
    // Warm the verification cache first.
    expect((await through.verify(header, { scopes: ["profile:read"], cost: 2 })).ok).toBe(true);
    const watch = await watchCommands();
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      outcomes.push((await through.verify(header, { scopes: ["profile:read"], cost: 3 })).ok);
    }
    outcomes.push((await through.verify(header, { scopes: ["orders:read"] })).ok); // 403
    for (let i = 0; i < 3; i++) {
      outcomes.push((await through.verify(header, { scopes: ["profile:read"] })).ok); // 1 ok, 2 × 429
    }
    return { commands: await watch.stop(), outcomes };
  };

  const metered = await nineRequests(keyward, "alice");
  const plain = await nineRequests(unmetered, "bob");
  expect(metered.outcomes).toEqual([true, true, true, true, true, false, true, false, false]);
  expect(plain.outcomes).toEqual(metered.outcomes);
  // The same commands with metering as without: one charge call per request and key lookups, all
  // script calls, nothing else. The ledger's additions were in the charge's call.
  const charges = (commands: string[]) => commands.filter((command) => command === "charge");
  expect(charges(metered.commands)).toHaveLength(9);
  expect(charges(plain.commands)).toHaveLength(9);
  for (const { commands } of [metered, plain]) {
    expect(commands.filter((command) => command !== "charge" && command !== "evalsha")).toEqual([]);
  }

  // Served: 1 + 5 + 1 requests; credits 2 + 5 × 3 + 1.
  const windowStart = Date.parse("2026-12-07T12:00:00Z");
  expect(await client.hgetall(`${prefix}counter:{user:alice}:meter:${windowStart}`)).toEqual({
    requests: "7",
    credits: "18",
  });
  clock.advance(5 * 60_000);
  await keyward.metering.exportNow();
  expect(events.map(({ ownerId, meter, value }) => ({ ownerId, meter, value }))).toEqual(
    expect.arrayContaining([
      { ownerId: "alice", meter: "requests", value: 7 },
      { ownerId: "alice", meter: "credits", value: 18 },
    ]),
  );
  expect(events).toHaveLength(2);
  // Acknowledged: nothing more is due, and a second run sends nothing.
  await keyward.metering.exportNow();
  expect(events).toHaveLength(2);
  expect((await keyward.metering.status()).sinks[0]).toMatchObject({ backlog: 0 });
  await keyward.close();
  await unmetered.close();
});
