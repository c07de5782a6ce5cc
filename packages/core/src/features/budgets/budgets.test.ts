import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { type BudgetEvent, type BudgetsConfig, budgets, memoryHoldStore } from "./index.js";

const start = Date.parse("2026-12-06T23:00:00.000Z"); // a Sunday, one hour before a new day and week
const scopes = { "completions:write": "Write completions" };
const route = "POST /api/v1/completions";

async function setup(config: BudgetsConfig = {}) {
  const clock = manualClock(start);
  const holds = config.holds ?? memoryHoldStore();
  const keyward = createKeyward({
    store: memoryStore(),
    scopes,
    tiers: { free: { rateLimit: { limit: 10_000, window: "1m" } } },
    clock,
    jwt: false,
    logger: false,
    features: [budgets({ sweepInterval: false, ...config, holds })],
  });
  const created = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "agent",
    scopes: ["completions:write"],
    tier: "free",
  });
  const header = `Bearer ${created.key}`;
  const reserve = (cost: number) =>
    keyward.budgets.reserve(header, { scopes: ["completions:write"], route, cost });
  const credits = async () => (await keyward.keys.usage("alice", created.id)).credits?.remaining;
  return { clock, keyward, holds, header, id: created.id, reserve, credits };
}

const okHold = <T extends { ok: boolean }>(result: T) => {
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
  return (result as unknown as { hold: import("./index.js").Hold }).hold;
};

describe("reserve, settle, release on the memory store", () => {
  it("holds cost from the key's credits, settles what was spent and gives back the rest", async () => {
    const { keyward, id, reserve, credits } = await setup();
    await keyward.keys.setLimits(id, { credits: { remaining: 100 } });
    const hold = okHold(await reserve(40));
    expect(hold.amount).toBe(40);
    expect(await credits()).toBe(60);
    expect(await hold.settle(25)).toEqual({ done: true, spent: 25, returned: 15, overrun: 0 });
    expect(await credits()).toBe(75);
    // Settled once: a second settle or release finds it gone and changes nothing.
    expect(await hold.settle(1)).toEqual({ done: false, reason: "gone" });
    expect(await keyward.budgets.release(hold.id)).toEqual({ done: false, reason: "gone" });
    expect(await credits()).toBe(75);
    const other = okHold(await reserve(30));
    expect(await other.release()).toEqual({ done: true, spent: 0, returned: 30, overrun: 0 });
    expect(await credits()).toBe(75);
  });

  it("refuses a hold larger than the balance, taking nothing, and caps a settle at the hold", async () => {
    const { keyward, id, reserve, credits } = await setup();
    await keyward.keys.setLimits(id, { credits: { remaining: 50 } });
    const refused = await reserve(51);
    expect(refused.ok === false && refused.error.code).toBe("credits_exhausted");
    expect(await credits()).toBe(50);
    const hold = okHold(await reserve(50));
    expect(await credits()).toBe(0);
    expect((await reserve(1)).ok).toBe(false);
    // Asked for more than it held: it spends the hold, no more, and says by how much it ran over.
    expect(await hold.settle(70)).toEqual({ done: true, spent: 50, returned: 0, overrun: 20 });
    expect(await credits()).toBe(0);
  });

  it("releases a hold by itself once its TTL passed, exactly once, and a late settle finds it gone", async () => {
    const { keyward, id, reserve, credits, clock } = await setup({ holdTtl: "10m" });
    await keyward.keys.setLimits(id, { credits: { remaining: 100 } });
    const hold = okHold(await reserve(60));
    expect(hold.expiresAt).toBe(start + 600_000);
    clock.advance(599_999);
    expect(await keyward.budgets.releaseExpired()).toBe(0);
    expect(await credits()).toBe(40);
    clock.advance(1);
    expect(await keyward.budgets.releaseExpired()).toBe(1);
    expect(await credits()).toBe(100);
    expect(await keyward.budgets.releaseExpired()).toBe(0);
    expect(await hold.settle(10)).toEqual({ done: false, reason: "gone" });
    expect(await credits()).toBe(100);
  });

  it("a key without credits or a budget is limited as any request and holds nothing", async () => {
    const { reserve, keyward, id } = await setup();
    const hold = okHold(await reserve(500));
    expect(hold.amount).toBe(0);
    expect(await hold.settle(3)).toEqual({ done: true, spent: 0, returned: 0, overrun: 3 });
    expect(await keyward.budgets.usage(id)).toMatchObject({ held: 0, key: null, owner: null });
  });

  it("refuses bad input with a clear error and changes nothing", async () => {
    const { keyward, id, reserve, credits, header } = await setup();
    await keyward.keys.setLimits(id, { credits: { remaining: 100 } });
    for (const cost of [
      -1,
      1.5,
      Number.NaN,
      "10" as unknown as number,
      undefined as unknown as number,
    ]) {
      await expect(reserve(cost)).rejects.toThrow(/reserve's `cost` must be a whole number ≥ 0/);
    }
    await expect(keyward.budgets.reserve(header, null as never)).rejects.toThrow(/reserve\(/);
    expect(await credits()).toBe(100);
    const hold = okHold(await reserve(10));
    for (const actual of [-1, 0.5, Number.POSITIVE_INFINITY, "3" as unknown as number]) {
      await expect(hold.settle(actual)).rejects.toThrow(
        /settle's `actual` must be a whole number ≥ 0/,
      );
      await expect(keyward.budgets.settle(hold.id, actual)).rejects.toThrow(/settle's `actual`/);
    }
    await expect(keyward.budgets.settle("", 1)).rejects.toThrow(
      /holdId must be a non-empty string/,
    );
    await expect(keyward.budgets.release(42 as never)).rejects.toThrow(/holdId/);
    expect(await credits()).toBe(90);
    // The hold is still whole after all that.
    expect(await hold.settle(4)).toMatchObject({ done: true, spent: 4, returned: 6 });
    expect(await credits()).toBe(96);
  });

  it("refuses a malformed configuration at start, naming the field", () => {
    expect(() => budgets({ perKey: { limit: -1, period: "day" } })).toThrow(/perKey \}\)\.limit/);
    expect(() => budgets({ perOwner: { limit: 5, period: "year" as never } })).toThrow(
      /period must be one of day, week, month/,
    );
    expect(() => budgets({ holdTtl: "soon" })).toThrow(/holdTtl/);
    expect(() => budgets({ holdTtl: 0 })).toThrow(/holdTtl/);
    expect(() => budgets({ thresholds: [150] })).toThrow(/thresholds/);
  });

  it("an invalid key is refused as verify refuses it, holding nothing", async () => {
    const { keyward, holds, clock } = await setup();
    const refused = await keyward.budgets.reserve("Bearer nope", { route, cost: 5 });
    expect(refused.ok).toBe(false);
    expect(await holds.expired(clock.now() + 3_600_000, 10)).toEqual([]);
  });
});

describe("reserve is the instance's own verify", () => {
  it("is heard by an `around` observer listed before budgets, as every verification is", async () => {
    const heard: (string | undefined)[] = [];
    const observer: KeywardFeature<"observer"> = {
      name: "observer",
      extends: {
        verify: {
          around: [
            (inner) => (authorization, options) => {
              heard.push(options?.route);
              return inner(authorization, options);
            },
          ],
        },
      },
      install: () => ({}),
    };
    const keyward = createKeyward({
      store: memoryStore(),
      scopes,
      tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
      clock: manualClock(start),
      jwt: false,
      logger: false,
      features: [observer, budgets({ sweepInterval: false })],
    });
    const { key } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: ["completions:write"],
      tier: "free",
    });
    const reserved = await keyward.budgets.reserve(`Bearer ${key}`, { route, cost: 3 });
    expect(reserved.ok).toBe(true);
    expect(heard).toEqual([route]);
  });
});

describe("budgets by period on the memory store", () => {
  it("a per-key day budget is checked with the other layers, refuses past its limit and rolls at UTC midnight", async () => {
    const { reserve, keyward, id, clock } = await setup({ perKey: { limit: 100, period: "day" } });
    const first = okHold(await reserve(60));
    const refused = await reserve(60);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.status).toBe(429);
      // A day budget is whole again at the next UTC midnight.
      expect(Number(refused.headers["Retry-After"])).toBe(3600);
    }
    expect(await keyward.budgets.usage(id)).toMatchObject({
      held: 60,
      key: {
        limit: 100,
        held: 60,
        spent: 0,
        left: 40,
        resetsAt: Date.parse("2026-12-07T00:00:00Z"),
      },
    });
    await first.settle(10);
    expect(await keyward.budgets.usage(id)).toMatchObject({
      held: 0,
      key: { spent: 10, left: 90 },
    });
    okHold(await reserve(85)).settle(85);
    expect((await reserve(10)).ok).toBe(false);
    clock.set(Date.parse("2026-12-07T00:00:00Z") - 1);
    expect((await reserve(10)).ok).toBe(false);
    clock.advance(1);
    expect((await reserve(100)).ok).toBe(true);
  });

  it("a hold taken before midnight and settled after gives nothing back into the new day", async () => {
    const { reserve, keyward, id, clock } = await setup({ perKey: { limit: 100, period: "day" } });
    const hold = okHold(await reserve(70));
    clock.set(Date.parse("2026-12-07T00:00:05Z"));
    expect(await hold.settle(20)).toMatchObject({ done: true, spent: 20, returned: 50 });
    // The new day's budget is whole: the 50 were the old day's.
    expect(await keyward.budgets.usage(id)).toMatchObject({ key: { left: 100, held: 0 } });
  });

  it("a week budget rolls on Monday 00:00 UTC, and a month budget on the 1st", async () => {
    const week = await setup({ perKey: { limit: 10, period: "week" } });
    okHold(await week.reserve(10));
    week.clock.set(Date.parse("2026-12-06T23:59:59.999Z")); // Sunday
    expect((await week.reserve(1)).ok).toBe(false);
    week.clock.advance(1); // Monday, 7 December
    expect((await week.reserve(10)).ok).toBe(true);
    week.clock.set(Date.parse("2026-12-13T12:00:00Z")); // the next Sunday: the same week
    expect((await week.reserve(1)).ok).toBe(false);

    const month = await setup({ perOwner: { limit: 10, period: "month" } });
    okHold(await month.reserve(10));
    month.clock.set(Date.parse("2026-12-31T23:59:59.999Z"));
    expect((await month.reserve(1)).ok).toBe(false);
    month.clock.advance(1);
    expect((await month.reserve(10)).ok).toBe(true);
  });

  it("a per-owner budget is shared by the owner's keys and checked with the key's credits, all or nothing", async () => {
    const { keyward, id, reserve, credits } = await setup({
      perOwner: { limit: 100, period: "month" },
    });
    await keyward.keys.setLimits(id, { credits: { remaining: 1000 } });
    const second = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "second",
      scopes: ["completions:write"],
      tier: "free",
    });
    okHold(await reserve(70));
    const refused = await keyward.budgets.reserve(`Bearer ${second.key}`, { route, cost: 40 });
    expect(refused.ok).toBe(false);
    // The owner budget refused: the credits of the first key were not touched by the refusal.
    expect(await credits()).toBe(930);
    expect((await keyward.budgets.reserve(`Bearer ${second.key}`, { route, cost: 30 })).ok).toBe(
      true,
    );
    // And the credits refuse all-or-nothing too: the budget keeps what it had.
    await keyward.keys.setLimits(id, { credits: { remaining: 0 } });
    expect((await keyward.budgets.usage(id))?.owner?.left).toBe(0);
  });

  it("plain verify with `cost` spends from the budget too", async () => {
    const { keyward, header, id } = await setup({ perKey: { limit: 5, period: "day" } });
    expect((await keyward.verify(header, { route, cost: 4 })).ok).toBe(true);
    expect((await keyward.verify(header, { route, cost: 2 })).ok).toBe(false);
    expect(await keyward.budgets.usage(id)).toMatchObject({ key: { spent: 4, left: 1, held: 0 } });
  });

  it("tells a threshold crossed and the budget exhausted, once each", async () => {
    const heard: BudgetEvent[] = [];
    const { reserve } = await setup({
      perKey: { limit: 100, period: "day" },
      thresholds: [50, 80],
      onEvent: (event) => heard.push(event),
    });
    okHold(await reserve(40));
    okHold(await reserve(45));
    expect(heard.map((event) => [event.type, event.percent])).toEqual([
      ["budget.threshold", 50],
      ["budget.threshold", 80],
    ]);
    okHold(await reserve(15));
    expect(heard.at(-1)).toMatchObject({ type: "budget.exhausted", scope: "key", remaining: 0 });
    expect((await reserve(1)).ok).toBe(false);
    expect(heard).toHaveLength(3);
  });

  it("tells the host what each hold spent (its meter), settled, released or expired", async () => {
    const settled: unknown[] = [];
    const { reserve, clock, keyward } = await setup({
      perKey: { limit: 100, period: "day" },
      onSettled: (hold) => settled.push([hold.how, hold.held, hold.spent]),
    });
    await okHold(await reserve(10)).settle(7);
    await okHold(await reserve(10)).release();
    okHold(await reserve(10));
    clock.advance(600_000);
    await keyward.budgets.releaseExpired();
    expect(settled).toEqual([
      ["settled", 10, 7],
      ["released", 10, 0],
      ["expired", 10, 0],
    ]);
  });
});

describe("budgets on the instance's event bus", () => {
  it("publishes budget.threshold, budget.exhausted and budget.settled for another feature to hear", async () => {
    const heard: [string, unknown][] = [];
    const listener: KeywardFeature<"listener"> = {
      name: "listener",
      install(kernel) {
        kernel.bus.subscribe("budget.*", (message, topic) => heard.push([topic, message]));
        return {};
      },
    };
    const keyward = createKeyward({
      store: memoryStore(),
      scopes,
      tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
      clock: manualClock(start),
      jwt: false,
      logger: false,
      features: [budgets({ perKey: { limit: 10, period: "day" }, sweepInterval: false }), listener],
    });
    const { key } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: ["completions:write"],
      tier: "free",
    });
    const reserved = await keyward.budgets.reserve(`Bearer ${key}`, { route, cost: 10 });
    if (!reserved.ok) throw new Error("refused");
    await reserved.hold.settle(6);
    expect(heard.map(([topic]) => topic)).toEqual([
      "budget.threshold",
      "budget.exhausted",
      "budget.settled",
    ]);
    expect(heard[2]![1]).toMatchObject({ held: 10, spent: 6, how: "settled" });
  });
});
