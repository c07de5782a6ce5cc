/**
 * The budgets feature on a store: its `HoldStore` contract (a hold is taken exactly once, however
 * many instances race for it), and reserve / settle / release / TTL and budget periods through a
 * Keyward instance on that store, on a manual clock. Every store runs the same suite.
 */
import { type Clock, type Keyward, manualClock } from "@keyward/core";
import {
  type BudgetsApi,
  type BudgetsConfig,
  budgets,
  type Hold,
  type HoldStore,
  type StoredHold,
} from "@keyward/core/budgets";
import { afterAll, describe, expect, it } from "vitest";

export interface BudgetsSuiteOptions {
  name: string;
  /** A fresh hold store (each call: its own keys or table). */
  holds(): HoldStore | Promise<HoldStore>;
  /** A Keyward instance on the store, with `features` listed, on `clock`. */
  keyward(options: {
    clock: Clock;
    features: ReturnType<typeof budgets>[];
  }): Keyward | Promise<Keyward>;
  cleanup?(): Promise<void>;
}

type WithBudgets = Keyward & { budgets: BudgetsApi };
type BudgetsReport = { owner: { held: number; spent: number } };

const scopes = ["completions:write"];
const route = "POST /api/v1/completions";
const sunday = Date.parse("2026-12-06T23:00:00.000Z");

const sample = (id: string, keyId: string, amount: number, expiresAt: number): StoredHold => ({
  id,
  keyId,
  ownerId: "alice",
  owner: "user:alice",
  amount,
  layers: [
    { layer: "credits", bucket: `credits:${keyId}`, cost: amount, remaining: 100, grantedAt: 1 },
  ],
  heldAt: expiresAt - 600_000,
  expiresAt,
});

export function describeBudgets(options: BudgetsSuiteOptions): void {
  describe(`budgets on ${options.name}`, () => {
    afterAll(async () => {
      await options.cleanup?.();
    });

    const instance = async (config: BudgetsConfig = {}) => {
      const clock = manualClock(sunday);
      const holds = await options.holds();
      const keyward = (await options.keyward({
        clock,
        features: [budgets({ sweepInterval: false, ...config, holds })],
      })) as WithBudgets;
      const ownerId = `owner-${crypto.randomUUID()}`;
      const created = await keyward.keys.create({
        ownerId,
        accountTier: "free",
        name: "agent",
        scopes,
        tier: "free",
      });
      const reserve = (cost: number) =>
        keyward.budgets.reserve(`Bearer ${created.key}`, { scopes, route, cost });
      const credits = async () =>
        (await keyward.keys.usage(ownerId, created.id)).credits?.remaining;
      return { clock, holds, keyward, ownerId, id: created.id, reserve, credits };
    };
    const holdOf = (result: { ok: boolean }): Hold => {
      if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
      return (result as unknown as { hold: Hold }).hold;
    };

    it("a hold is taken exactly once of many concurrent takes, and counted until then", async () => {
      const holds = await options.holds();
      const id = `hold_${crypto.randomUUID()}`;
      const keyId = `key-${crypto.randomUUID()}`;
      await holds.put(sample(id, keyId, 30, 1_000));
      await holds.put(sample(`${id}-b`, keyId, 12, 2_000));
      expect(await holds.heldBy(keyId)).toBe(42);
      const taken = await Promise.all(Array.from({ length: 40 }, () => holds.take(id)));
      const winners = taken.filter((hold) => hold !== undefined);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toEqual(sample(id, keyId, 30, 1_000));
      expect(await holds.heldBy(keyId)).toBe(12);
      // A second put of an id that exists is refused: a hold is never silently replaced.
      await expect(holds.put(sample(`${id}-b`, keyId, 99, 5_000))).rejects.toThrow();
      expect(await holds.heldBy(keyId)).toBe(12);
    });

    it("lists the holds past their expiry, and only those", async () => {
      const holds = await options.holds();
      const keyId = `key-${crypto.randomUUID()}`;
      const base = 10_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
      await holds.put(sample(`${keyId}-1`, keyId, 1, base));
      await holds.put(sample(`${keyId}-2`, keyId, 1, base + 5));
      const due = await holds.expired(base + 4, 100);
      expect(due).toContain(`${keyId}-1`);
      expect(due).not.toContain(`${keyId}-2`);
      expect(await holds.expired(base + 5, 100)).toContain(`${keyId}-2`);
      await holds.take(`${keyId}-1`);
      await holds.take(`${keyId}-2`);
      expect(await holds.heldBy(keyId)).toBe(0);
    });

    it("reserve holds from the key's credits; settle, release and the TTL give back exactly", async () => {
      const { keyward, id, reserve, credits, clock } = await instance();
      await keyward.keys.setLimits(id, { credits: { remaining: 100 } });
      const settled = holdOf(await reserve(40));
      const released = holdOf(await reserve(30));
      const expired = holdOf(await reserve(20));
      expect(await credits()).toBe(10);
      expect((await reserve(11)).ok).toBe(false);
      expect(await keyward.budgets.usage(id)).toMatchObject({ held: 90 });
      expect(await settled.settle(25)).toEqual({ done: true, spent: 25, returned: 15, overrun: 0 });
      expect(await keyward.budgets.release(released.id)).toMatchObject({
        done: true,
        returned: 30,
      });
      expect(await credits()).toBe(55);
      clock.advance(600_000);
      expect(await keyward.budgets.releaseExpired()).toBe(1);
      expect(await expired.settle(5)).toEqual({ done: false, reason: "gone" });
      expect(await credits()).toBe(75);
      expect(await keyward.budgets.usage(id)).toMatchObject({ held: 0 });
    });

    it("the usage report shows each budget's held, spent and left, per key and per owner", async () => {
      const { keyward, ownerId, id, reserve } = await instance({
        perKey: { limit: 100, period: "day" },
        perOwner: { limit: 1000, period: "month" },
      });
      holdOf(await reserve(30));
      await holdOf(await reserve(25)).settle(20);
      // Another key of the same owner spends from the owner's budget, not from this key's.
      const other = await keyward.keys.create({
        ownerId,
        accountTier: "free",
        name: "other agent",
        scopes,
        tier: "free",
      });
      const reserved = await keyward.budgets.reserve(`Bearer ${other.key}`, {
        scopes,
        route,
        cost: 40,
      });
      await holdOf(reserved).settle(40);
      const report = await keyward.keys.usage(ownerId, id);
      expect(report.budgets).toEqual({
        held: 30,
        key: {
          limit: 100,
          period: "day",
          held: 30,
          spent: 20,
          left: 50,
          resetsAt: "2026-12-07T00:00:00.000Z",
        },
        own: null,
        owner: {
          limit: 1000,
          period: "month",
          held: 30,
          spent: 60,
          left: 910,
          resetsAt: "2027-01-01T00:00:00.000Z",
        },
      });
      // The same through the endpoint's operation for the other key: its own budget, the shared one.
      const others = (await keyward.keys.usage(ownerId, other.id)).budgets as BudgetsReport;
      expect(others).toMatchObject({ held: 0, key: { spent: 40, left: 60 }, owner: { left: 910 } });
      // The first key's open hold is the owner's held where a store counts holds per owner (Redis's
      // layers), else the other key's report counts it as spent.
      expect(others.owner.held + others.owner.spent).toBe(90);
      expect([0, 30]).toContain(others.owner.held);
    });

    it("a key with no budget has no budgets on its usage report", async () => {
      const { keyward, ownerId, id, reserve } = await instance();
      await keyward.keys.setLimits(id, { credits: { remaining: 10 } });
      holdOf(await reserve(4));
      const report = await keyward.keys.usage(ownerId, id);
      expect(report).not.toHaveProperty("budgets");
      expect(report.credits?.remaining).toBe(6);
    });

    it("bad input is refused with a clear error and changes nothing", async () => {
      const { keyward, id, reserve, credits } = await instance();
      await keyward.keys.setLimits(id, { credits: { remaining: 100 } });
      await expect(reserve(-5)).rejects.toThrow(/whole number ≥ 0/);
      await expect(reserve(2.5)).rejects.toThrow(/whole number ≥ 0/);
      const hold = holdOf(await reserve(10));
      await expect(hold.settle(-1)).rejects.toThrow(/whole number ≥ 0/);
      await expect(keyward.budgets.settle(hold.id, Number.NaN)).rejects.toThrow(/whole number ≥ 0/);
      expect(await credits()).toBe(90);
      expect(await keyward.budgets.settle("hold_unknown", 3)).toEqual({
        done: false,
        reason: "gone",
      });
      expect(await hold.settle(10)).toMatchObject({ done: true, spent: 10, returned: 0 });
      expect(await credits()).toBe(90);
    });

    it("budgets roll at UTC boundaries: a day at midnight, a week on Monday, a month on the 1st", async () => {
      const day = await instance({ perKey: { limit: 10, period: "day" } });
      holdOf(await day.reserve(10));
      expect((await day.reserve(1)).ok).toBe(false);
      day.clock.set(Date.parse("2026-12-06T23:59:59.999Z"));
      expect((await day.reserve(1)).ok).toBe(false);
      day.clock.advance(1);
      holdOf(await day.reserve(10));

      const week = await instance({ perKey: { limit: 10, period: "week" } });
      holdOf(await week.reserve(10));
      week.clock.set(Date.parse("2026-12-06T23:59:59.999Z"));
      expect((await week.reserve(1)).ok).toBe(false);
      week.clock.advance(1);
      holdOf(await week.reserve(10));
      week.clock.set(Date.parse("2026-12-13T23:59:59.999Z"));
      expect((await week.reserve(1)).ok).toBe(false);

      const month = await instance({ perOwner: { limit: 10, period: "month" } });
      holdOf(await month.reserve(10));
      month.clock.set(Date.parse("2026-12-31T23:59:59.999Z"));
      expect((await month.reserve(1)).ok).toBe(false);
      month.clock.advance(1);
      holdOf(await month.reserve(10));
    });

    it("a week budget's refusal carries Retry-After to Monday 00:00 UTC, and a give-back within the week returns", async () => {
      const { reserve, clock, keyward, ownerId, id } = await instance({
        perKey: { limit: 10, period: "week" },
      });
      // Thursday 2026-12-10, 12:00 UTC: the week ends on Monday 2026-12-14, 84 hours later.
      clock.set(Date.parse("2026-12-10T12:00:00Z"));
      const hold = holdOf(await reserve(10));
      const refused = await reserve(1);
      expect(refused.ok).toBe(false);
      if (refused.ok) return;
      expect(refused.error.status).toBe(429);
      expect(refused.headers["Retry-After"]).toBe(String(84 * 3600));
      expect(refused.headers["X-RateLimit-Reset"]).toBe(
        String(Date.parse("2026-12-14T00:00:00Z") / 1000),
      );
      // Settled the same week: what it did not spend comes back to this week's budget.
      expect(await hold.settle(4)).toMatchObject({ done: true, spent: 4, returned: 6 });
      expect((await keyward.keys.usage(ownerId, id)).budgets).toMatchObject({
        key: { period: "week", spent: 4, left: 6, resetsAt: "2026-12-14T00:00:00.000Z" },
      });
      clock.set(Date.parse("2026-12-14T00:00:00Z"));
      holdOf(await reserve(10));
    });

    it("a hold settled after its budget's period ended gives nothing back into the new one", async () => {
      const { reserve, keyward, id, clock } = await instance({
        perKey: { limit: 100, period: "day" },
      });
      const hold = holdOf(await reserve(80));
      clock.set(Date.parse("2026-12-07T00:00:01Z"));
      holdOf(await reserve(100)).settle(100);
      expect(await hold.settle(0)).toMatchObject({ done: true, returned: 80 });
      // The new day's 100 were spent; the 80 held yesterday did not come back into today.
      expect((await reserve(1)).ok).toBe(false);
      expect(await keyward.budgets.usage(id)).toMatchObject({ key: { left: 0, spent: 100 } });
    });
  });
}
