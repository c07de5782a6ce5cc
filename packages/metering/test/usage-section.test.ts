/**
 * `metering` on a key's usage report: the ledger's counts for the key's owner in the open window,
 * per meter (served requests, credits, a host's meter), on the memory ledger and on the real
 * PostgreSQL.
 */
import { createKeyward, manualClock, memoryStore } from "@keyward/core";
import { type OpenApiApi, openapi } from "@keyward/core/openapi";
import { afterAll, describe, expect, it } from "vitest";
import { memoryLedger, metering, postgresLedger, type UsageLedger } from "../src/index.js";
import { dropSchema, testPool, uniqueSchema } from "./support/postgres.js";

const pool = testPool(2);
const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(pool, schema);
  await pool.end();
});

const ledgers: [string, () => Promise<UsageLedger>][] = [
  ["memory", async () => memoryLedger()],
  [
    "postgres",
    async () => {
      const schema = uniqueSchema("report");
      schemas.push(schema);
      const ledger = postgresLedger({ client: pool, schema });
      await ledger.migrate();
      return ledger;
    },
  ],
];

describe.each(ledgers)("the usage report's metering section on the %s ledger", (_, make) => {
  it("shows the owner's counts per meter in the open window, and starts over in the next", async () => {
    const clock = manualClock(Date.parse("2026-12-07T12:00:10Z"));
    const keyward = createKeyward({
      store: memoryStore(),
      scopes: { "completions:write": "Write completions" },
      tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
      clock,
      jwt: false,
      logger: false,
      features: [openapi(), metering({ ledger: await make(), window: "1m", exportEvery: false })],
    });
    const created = (name: string, ownerId = "alice") =>
      keyward.keys.create({
        ownerId,
        accountTier: "free",
        name,
        scopes: ["completions:write"],
        tier: "free",
      });
    const first = await created("first");
    const second = await created("second");
    const bobs = await created("bob's", "bob");
    const use = async (key: string, cost = 1) =>
      expect(
        (await keyward.verify(`Bearer ${key}`, { scopes: ["completions:write"], cost })).ok,
      ).toBe(true);
    await keyward.keys.setLimits(first.id, { credits: { remaining: 100 } });
    await use(first.key, 7);
    await use(first.key);
    await use(second.key);
    await use(bobs.key);
    await keyward.metering.record("alice", "llm_tokens", 1234);

    const report = await keyward.keys.usage("alice", first.id);
    // The owner's counts: both of alice's keys, never bob's.
    expect(report.metering).toEqual({
      windowStart: "2026-12-07T12:00:00.000Z",
      windowEnd: "2026-12-07T12:01:00.000Z",
      meters: { requests: 3, credits: 8, llm_tokens: 1234 },
    });
    expect((await keyward.keys.usage("bob", bobs.id)).metering).toMatchObject({
      meters: { requests: 1 },
    });
    const schema = (keyward as typeof keyward & { openapi: OpenApiApi }).openapi().components
      .schemas.UsageReport as { properties: Record<string, unknown> };
    expect(schema.properties.metering).toMatchObject({
      required: ["windowStart", "windowEnd", "meters"],
    });

    clock.advance(60_000);
    expect((await keyward.keys.usage("alice", second.id)).metering).toEqual({
      windowStart: "2026-12-07T12:01:00.000Z",
      windowEnd: "2026-12-07T12:02:00.000Z",
      meters: {},
    });
    await keyward.close();
  });
});
