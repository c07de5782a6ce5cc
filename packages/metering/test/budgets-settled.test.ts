/**
 * Budgets and metering together: what each hold settled is what the ledger records under the
 * host's meter (`keyward.metering.record` from `budgets({ onSettled })`), so a customer is billed
 * exactly what the budget charged: settled, aborted, released and expired holds alike.
 */
import { createKeyward, manualClock, memoryStore } from "@keyward/core";
import { budgets, settlingStream } from "@keyward/core/budgets";
import { expect, it } from "vitest";
import { memoryLedger, metering } from "../src/index.js";

it("the ledger's llm_tokens meter holds exactly what the holds settled", async () => {
  const clock = manualClock(Date.parse("2026-12-07T12:00:00Z"));
  const ledger = memoryLedger();
  let record: (ownerId: string, amount: number) => Promise<void> = async () => {};
  const recorded: Promise<void>[] = [];
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "completions:write": "Write completions" },
    tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
    clock,
    jwt: false,
    logger: false,
    features: [
      metering({ ledger }),
      budgets({
        perKey: { limit: 10_000, period: "day" },
        sweepInterval: false,
        onSettled: (settled) => {
          if (settled.spent > 0) recorded.push(record(settled.ownerId, settled.spent));
        },
      }),
    ],
  });
  record = (ownerId, amount) => keyward.metering.record(ownerId, "llm_tokens", amount);
  const { key, id } = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "agent",
    scopes: ["completions:write"],
    tier: "free",
  });
  const reserve = async (cost: number) => {
    const reserved = await keyward.budgets.reserve(`Bearer ${key}`, {
      scopes: ["completions:write"],
      route: "POST /api/v1/completions",
      cost,
    });
    if (!reserved.ok) throw new Error("refused");
    return reserved.hold;
  };
  await (await reserve(500)).settle(123);
  await (await reserve(500)).release();
  // A stream the client cancels after 4 chunks: 4 are billed.
  const hold = await reserve(100);
  const chunks = (async function* () {
    for (let i = 0; i < 50; i++) yield i;
  })();
  let ended!: () => void;
  const done = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const reader = settlingStream(hold, chunks, { onSettled: () => ended() }).getReader();
  for (let i = 0; i < 4; i++) await reader.read();
  await reader.cancel();
  await done;
  await Promise.all(recorded);
  const totals = await ledger.totals(0, Date.parse("2027-01-01T00:00:00Z"));
  const tokens = totals.filter((total) => total.meter === "llm_tokens");
  expect(tokens).toEqual([{ ownerId: "alice", meter: "llm_tokens", total: 127 }]);
  // The budget charged the same: 10,000 − 127 left.
  const usage = await keyward.budgets.usage(id);
  expect(usage?.key).toMatchObject({ spent: 127, left: 10_000 - 127, held: 0 });
});
