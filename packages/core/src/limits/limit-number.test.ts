/**
 * One bound on every limit number, whichever way it comes in: tiers, `keys.setLimits`,
 * `keys.update`, `imports.importKeys`, `verify`'s `cost`. Past it, each way refuses with the same
 * words and stores nothing (a balance of 1e20 once broke PostgreSQL's write-back, 1e308 the Redis
 * scripts).
 */
import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { imports } from "../features/imports/index.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import { limitNumberProblem, maxLimitNumber } from "./limit-number.js";

const scopes = { "profile:read": "Read" };
const tiers = { free: { rateLimit: { limit: 100, window: "1m" } } };
const tooBig = [maxLimitNumber + 1, 1e20, 1e308, Number.POSITIVE_INFINITY];

function setup() {
  const store = memoryStore();
  const keyward = createKeyward({
    store,
    scopes,
    tiers,
    clock: manualClock(Date.parse("2026-07-01T12:00:00.000Z")),
    jwt: false,
    logger: false,
    features: [imports()],
  });
  return { keyward, store };
}

describe("the bound on limit numbers", () => {
  it("takes whole numbers from the least up to 10^15, nothing else", () => {
    expect(limitNumberProblem(0, 0)).toBeNull();
    expect(limitNumberProblem(maxLimitNumber, 1)).toBeNull();
    expect(limitNumberProblem(maxLimitNumber + 1, 0)).toMatch(/at most 1000000000000000/);
    expect(limitNumberProblem(0, 1)).toMatch(/at least 1/);
    for (const bad of [0.5, Number.NaN, "5", null, -1]) {
      expect(limitNumberProblem(bad, 0)).toBe("must be an integer of at least 0");
    }
  });

  it("refuses a tier whose rate limit or quota is past it", () => {
    for (const limit of tooBig) {
      expect(() =>
        createKeyward({
          store: memoryStore(),
          scopes,
          tiers: {
            free: { rateLimit: { limit: 100, window: "1m" }, quota: { limit, period: "day" } },
          },
          jwt: false,
          logger: false,
        }),
      ).toThrow(/quota limit/);
    }
    expect(() =>
      createKeyward({
        store: memoryStore(),
        scopes,
        tiers: { free: { rateLimit: { limit: maxLimitNumber + 1, window: "1ms" } } },
        jwt: false,
        logger: false,
      }),
    ).toThrow(/at most 1000000000000000/);
  });

  it("refuses it from setLimits and update, storing nothing", async () => {
    const { keyward, store } = setup();
    const { id } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    for (const remaining of tooBig) {
      await expect(keyward.keys.setLimits(id, { credits: { remaining } })).rejects.toThrow(
        /credits remaining/,
      );
      const updated = await keyward.keys
        .update("alice", id, { limits: { credits: { remaining } } })
        .catch((error: unknown) => error);
      expect(JSON.stringify(updated)).toMatch(/limits.*credits remaining/);
      await expect(
        keyward.keys.setLimits(id, {
          credits: { remaining: 5, refill: { amount: remaining, period: "day" } },
        }),
      ).rejects.toThrow(/refill amount/);
      await expect(
        keyward.keys.setLimits(id, { quota: { limit: remaining, period: "day" } }),
      ).rejects.toThrow(/quota limit/);
    }
    expect((await store.keys.findById(id))?.limits ?? null).toBeNull();
  });

  it("refuses it from an import, naming the field, writing nothing", async () => {
    const { keyward, store } = setup();
    const record = (credits: unknown) => ({
      key: `ba_${"x".repeat(40)}${String(Math.random()).slice(2)}`,
      owner: "alice",
      tier: "free",
      credits,
    });
    const report = await keyward.imports!.importKeys([
      record({ remaining: 1e20 }),
      record({ remaining: 1e308 }),
      record({ remaining: 5, refill: { amount: 1e16, period: "month" } }),
      record({ remaining: maxLimitNumber }),
    ]);
    expect(report.refused.map((refusal) => [refusal.index, refusal.issues[0]?.loc])).toEqual([
      [0, ["credits"]],
      [1, ["credits"]],
      [2, ["credits"]],
    ]);
    for (const refusal of report.refused) {
      expect(refusal.issues[0]?.msg).toMatch(/at most 1000000000000000/);
    }
    expect(report.imported).toBe(0);
    expect(store.keys.snapshot()).toEqual([]);
  });

  it("refuses a verify cost past it, as the host's misuse verify reports (never spent)", async () => {
    const { keyward } = setup();
    const { id, key } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    await keyward.keys.setLimits(id, { credits: { remaining: maxLimitNumber } });
    const refused = await keyward.verify(`Bearer ${key}`, {
      route: "GET /x",
      cost: maxLimitNumber + 1,
    });
    expect(refused.ok ? null : (refused.error.cause as Error).message).toMatch(
      /`cost` must be at most 1000000000000000/,
    );
    const spent = await keyward.verify(`Bearer ${key}`, { route: "GET /x", cost: maxLimitNumber });
    expect(spent.ok).toBe(true);
  });
});
