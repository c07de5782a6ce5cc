/**
 * Every ledger keeps the rules exactly-once rests on (see src/ledger/usage-ledger.ts): additions
 * summed per window, a frozen send kept until acknowledged, an acknowledgement counted once, one
 * lease holder at a time, adjustments kept. Run on memory, on the real PostgreSQL and on the real Redis.
 */
import { randomUUID } from "node:crypto";
import IORedis from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { memoryLedger, postgresLedger, redisLedger, type UsageLedger } from "../src/index.js";
import { dropSchema, testPool, uniqueSchema } from "./support/postgres.js";

const pool = testPool();
const schemas: string[] = [];
const redis = new IORedis({ host: "127.0.0.1", port: 6379 });
const prefixes: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(pool, schema);
  await pool.end();
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

const ledgers: [string, () => Promise<UsageLedger>][] = [
  ["memory", async () => memoryLedger()],
  [
    "postgres",
    async () => {
      const schema = uniqueSchema("conf");
      schemas.push(schema);
      const ledger = postgresLedger({ client: pool, schema });
      await ledger.migrate();
      await ledger.migrate(); // idempotent
      return ledger;
    },
  ],
  [
    "redis",
    async () => {
      const prefix = `test-ledger-${randomUUID()}:`;
      prefixes.push(prefix);
      return redisLedger({ client: redis, prefix });
    },
  ],
];

const minute = 60_000;
const w0 = Date.parse("2026-12-01T10:00:00.000Z");
const query = {
  sink: "s",
  meters: ["requests", "credits"],
  startedBefore: w0 + minute,
  limit: 100,
};

describe.each(ledgers)("%s ledger", (_, make) => {
  it("sums additions per owner, meter and window; due lists only closed, unacknowledged ones", async () => {
    const ledger = await make();
    await ledger.add([
      { ownerId: "alice", meter: "requests", windowStart: w0, amount: 1 },
      { ownerId: "alice", meter: "credits", windowStart: w0, amount: 7 },
    ]);
    await ledger.add([{ ownerId: "alice", meter: "requests", windowStart: w0, amount: 1 }]);
    await ledger.add([
      { ownerId: "alice", meter: "requests", windowStart: w0 + minute, amount: 1 },
    ]);
    await ledger.add([{ ownerId: "bob", meter: "llm_tokens", windowStart: w0, amount: 9 }]);
    const due = await ledger.due(query);
    expect(
      due.map(({ ownerId, meter, total, acknowledged }) => ({
        ownerId,
        meter,
        total,
        acknowledged,
      })),
    ).toEqual(
      expect.arrayContaining([
        { ownerId: "alice", meter: "requests", total: 2, acknowledged: 0 },
        { ownerId: "alice", meter: "credits", total: 7, acknowledged: 0 },
      ]),
    );
    expect(due).toHaveLength(2);
    expect(await ledger.totals(w0, w0 + 2 * minute)).toEqual(
      expect.arrayContaining([
        { ownerId: "alice", meter: "requests", total: 3 },
        { ownerId: "alice", meter: "credits", total: 7 },
        { ownerId: "bob", meter: "llm_tokens", total: 9 },
      ]),
    );
  });

  it("sums runs of one owner's additions interleaved with other owners, meters and windows", async () => {
    const ledger = await make();
    const alice = (meter: string, windowStart: number, amount = 1) => ({
      ownerId: "alice",
      meter,
      windowStart,
      amount,
    });
    // A run of one row, then each way out of it and back: another owner, meter and window.
    for (let i = 0; i < 3; i++) await ledger.add([alice("requests", w0)]);
    await ledger.add([{ ownerId: "bob", meter: "requests", windowStart: w0, amount: 5 }]);
    await ledger.add([alice("requests", w0)]);
    await ledger.add([alice("credits", w0, 4), alice("requests", w0)]);
    await ledger.add([alice("requests", w0 + minute)]);
    await ledger.add([alice("requests", w0), alice("requests", w0)]);
    expect(await ledger.totals(w0, w0 + 2 * minute)).toEqual(
      expect.arrayContaining([
        // Both windows: 7 in the first, 1 in the second.
        { ownerId: "alice", meter: "requests", total: 8 },
        { ownerId: "alice", meter: "credits", total: 4 },
        { ownerId: "bob", meter: "requests", total: 5 },
      ]),
    );
    const byMeter = (totals: { meter: string }[]) =>
      [...totals].sort((a, b) => a.meter.localeCompare(b.meter));
    expect(byMeter(await ledger.windowOf("alice", w0))).toEqual([
      { ownerId: "alice", meter: "credits", total: 4 },
      { ownerId: "alice", meter: "requests", total: 7 },
    ]);
  });

  it("windowOf reads one owner's meters in one window, nothing of other owners or windows", async () => {
    const ledger = await make();
    await ledger.add([
      { ownerId: "alice", meter: "requests", windowStart: w0, amount: 2 },
      { ownerId: "alice", meter: "llm_tokens", windowStart: w0, amount: 1234 },
      { ownerId: "alice", meter: "requests", windowStart: w0 + minute, amount: 5 },
      { ownerId: "bob", meter: "requests", windowStart: w0, amount: 9 },
    ]);
    await ledger.add([{ ownerId: "alice", meter: "requests", windowStart: w0, amount: 1 }]);
    const sorted = (totals: { meter: string }[]) =>
      [...totals].sort((a, b) => a.meter.localeCompare(b.meter));
    expect(sorted(await ledger.windowOf("alice", w0))).toEqual([
      { ownerId: "alice", meter: "llm_tokens", total: 1234 },
      { ownerId: "alice", meter: "requests", total: 3 },
    ]);
    expect(await ledger.windowOf("alice", w0 + minute)).toEqual([
      { ownerId: "alice", meter: "requests", total: 5 },
    ]);
    expect(await ledger.windowOf("carol", w0)).toEqual([]);
    expect(await ledger.windowOf("alice", w0 + 2 * minute)).toEqual([]);
  });

  it("a frozen send stays as frozen until acknowledged, and is counted once", async () => {
    const ledger = await make();
    const window = { ownerId: "alice", meter: "requests", windowStart: w0 };
    await ledger.add([{ ...window, amount: 3 }]);
    expect(await ledger.prepare("s", [{ ...window, from: 0, value: 3 }], 1)).toEqual([
      { ...window, from: 0, value: 3, preparedAt: 1 },
    ]);
    // A late write grows the window; a second exporter's prepare keeps the first send.
    await ledger.add([{ ...window, amount: 2 }]);
    expect(await ledger.prepare("s", [{ ...window, from: 0, value: 5 }], 2)).toEqual([
      { ...window, from: 0, value: 3, preparedAt: 1 },
    ]);
    expect((await ledger.due(query))[0]).toMatchObject({
      total: 5,
      acknowledged: 0,
      pending: { from: 0, value: 3 },
    });
    await ledger.acknowledge("s", [{ ...window, from: 0 }]);
    await ledger.acknowledge("s", [{ ...window, from: 0 }]); // a second exporter's: ignored
    expect((await ledger.due(query))[0]).toEqual({ ...window, total: 5, acknowledged: 3 });
    // The rest goes from offset 3; a stale send from 0 is not frozen.
    expect(await ledger.prepare("s", [{ ...window, from: 0, value: 5 }], 3)).toEqual([]);
    expect(await ledger.prepare("s", [{ ...window, from: 3, value: 2 }], 3)).toEqual([
      { ...window, from: 3, value: 2, preparedAt: 3 },
    ]);
    await ledger.acknowledge("s", [{ ...window, from: 3 }]);
    expect(await ledger.due(query)).toEqual([]);
    // Another sink has its own progress.
    expect(await ledger.due({ ...query, sink: "other" })).toHaveLength(1);
  });

  it("set aside: an adjustment kept, the window handled", async () => {
    const ledger = await make();
    const window = { ownerId: "alice", meter: "requests", windowStart: w0 };
    await ledger.add([{ ...window, amount: 4 }]);
    await ledger.prepare("s", [{ ...window, from: 0, value: 4 }], 1);
    await ledger.setAside("s", { ...window, value: 4, reason: "too-late", detail: "old" }, 9);
    expect(await ledger.due(query)).toEqual([]);
    expect(await ledger.adjustments()).toEqual([
      { sink: "s", ...window, value: 4, reason: "too-late", detail: "old", at: 9 },
    ]);
    expect(await ledger.adjustments("other")).toEqual([]);
  });

  it("one lease holder at a time, taken over once expired", async () => {
    const ledger = await make();
    expect(await ledger.lease("export", "a", 1000, 0)).toBe(true);
    expect(await ledger.lease("export", "b", 1000, 500)).toBe(false);
    expect(await ledger.lease("export", "a", 1000, 900)).toBe(true);
    expect(await ledger.lease("export", "b", 1000, 1899)).toBe(false);
    expect(await ledger.lease("export", "b", 1000, 1900)).toBe(true);
    await ledger.releaseLease("export", "a"); // not a's: kept
    expect(await ledger.lease("export", "a", 1000, 2000)).toBe(false);
    await ledger.releaseLease("export", "b");
    expect(await ledger.lease("export", "a", 1000, 2000)).toBe(true);
  });

  it("refuses a bad addition and changes nothing", async () => {
    const ledger = await make();
    const good = { ownerId: "alice", meter: "requests", windowStart: w0, amount: 1 };
    for (const bad of [
      { ...good, amount: 0 },
      { ...good, amount: 1.5 },
      { ...good, meter: "Bad Meter" },
      { ...good, ownerId: "" },
      { ...good, windowStart: -1 },
    ]) {
      // Thrown at once, or rejected: either way before anything is written.
      await expect(Promise.resolve().then(() => ledger.add([good, bad]))).rejects.toThrow(
        TypeError,
      );
    }
    expect(await ledger.totals(0, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });
});
