import { createKeyward } from "@keyward/core";
import { DEMO_SCOPE_DESCRIPTIONS, demoTiers } from "@keyward/testing/demo-contract";
import { describe, expect, it } from "vitest";
import { banner } from "../src/banner.js";
import { loadDemoConfig } from "../src/config.js";
import { parseOwnerLimits, parseQuotas } from "../src/layer-limits.js";
import { openDemoStore } from "../src/store.js";

describe("KEYWARD_OWNER_LIMITS and KEYWARD_QUOTAS", () => {
  it("are off when unset or empty: the tiers and the banner are v0.1's", () => {
    const config = loadDemoConfig({});
    expect(config.ownerLimits).toEqual({});
    expect(config.quotas).toEqual({});
    expect(parseQuotas("  ")).toEqual({});
    expect(demoTiers(config.tierLimits, config).free).toEqual({
      rateLimit: { limit: 60, window: "1m" },
    });
    const text = banner({
      title: "t",
      url: "http://x",
      config,
      storage: "s",
      exampleDirectory: "/x",
    });
    expect(text).not.toMatch(/Owners|Quotas/);
  });

  it("add the owner allowance and the quota to the tiers they name", () => {
    const config = loadDemoConfig({
      KEYWARD_OWNER_LIMITS: "free=100,pro=1000",
      KEYWARD_QUOTAS: "free=1000/day,pro=100000/month",
    });
    const tiers = demoTiers(config.tierLimits, config);
    expect(tiers.free).toEqual({
      rateLimit: { limit: 60, window: "1m" },
      ownerRateLimit: { limit: 100, window: "1m" },
      quota: { limit: 1000, period: "day" },
    });
    expect(tiers.pro.quota).toEqual({ limit: 100_000, period: "month" });
    expect(tiers.enterprise).toEqual({ rateLimit: { limit: 6000, window: "1m" } });
    const text = banner({
      title: "t",
      url: "http://x",
      config,
      storage: "s",
      exampleDirectory: "/x",
    });
    expect(text).toContain("Owners    free 100/min, pro 1000/min");
    expect(text).toContain("Quotas    free 1000/day, pro 100000/month");
  });

  it.each([
    [parseOwnerLimits, "free", /"free" is not tier=value/],
    [parseOwnerLimits, "gold=5", /unknown tier "gold"/],
    [parseOwnerLimits, "free=0", /at least 1 \(got "0"\)/],
    [parseOwnerLimits, "free=1,free=2", /given twice/],
    [parseQuotas, "free=1000", /requests\/day or requests\/month/],
    [parseQuotas, "free=1000/week", /got "1000\/week"/],
    [parseQuotas, "free=0/day", /got "0\/day"/],
  ])("refuses %j", (parse, value, message) => {
    expect(() => parse(value)).toThrow(message);
  });

  it("limit a demo owner's keys together in memory", async () => {
    const config = loadDemoConfig({
      KEYWARD_OWNER_LIMITS: "free=3",
      KEYWARD_QUOTAS: "free=1000/day",
    });
    const store = await openDemoStore({ databaseUrl: undefined, redisUrl: undefined });
    const keyward = createKeyward({
      store: store.storage,
      scopes: DEMO_SCOPE_DESCRIPTIONS,
      tiers: demoTiers(config.tierLimits, config),
      jwt: false,
      logger: false,
    });
    const create = () =>
      keyward.keys.create({
        ownerId: "u",
        accountTier: "free",
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
      });
    const keys = [await create(), await create()];
    const results = [];
    for (let i = 0; i < 4; i++)
      results.push(await keyward.verify(`Bearer ${keys[i % 2]!.key}`, { route: "GET /p" }));
    expect(results.map((result) => result.ok)).toEqual([true, true, true, false]);
    await keyward.close();
  });
});
