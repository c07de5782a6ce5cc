import { describe, expect, it } from "vitest";
import { grantableTiers, offeredGracePeriods, pageSizeOf } from "./offers.js";

describe("grantableTiers", () => {
  const tiers = ["free", "pro", "enterprise"];
  it("offers the tiers at or below the account's", () => {
    expect(grantableTiers(tiers, "free")).toEqual(["free"]);
    expect(grantableTiers(tiers, "pro")).toEqual(["free", "pro"]);
    expect(grantableTiers(tiers, "enterprise")).toEqual(tiers);
  });
  it("offers every tier when the account's is unknown", () => {
    expect(grantableTiers(tiers, undefined)).toEqual(tiers);
    expect(grantableTiers(tiers, "platinum")).toEqual(tiers);
  });
});

describe("offeredGracePeriods", () => {
  it("offers the host's periods as they are", () => {
    expect(offeredGracePeriods([60, 120], 604_800)).toEqual([60, 120]);
    expect(offeredGracePeriods([60], undefined)).toEqual([60]);
  });
  it("offers an hour, a day and a week within the server's maximum, none without graceful rotation", () => {
    expect(offeredGracePeriods([], 604_800)).toEqual([3_600, 86_400, 604_800]);
    expect(offeredGracePeriods([], 86_400)).toEqual([3_600, 86_400]);
    expect(offeredGracePeriods([], 60)).toEqual([]);
    expect(offeredGracePeriods([], undefined)).toEqual([]);
  });
});

describe("pageSizeOf", () => {
  it("keeps a size the list endpoint takes, else the fallback", () => {
    expect(pageSizeOf(10, 25)).toBe(10);
    expect(pageSizeOf("50", 25)).toBe(50);
    expect(pageSizeOf(5000, 25)).toBe(1000);
    expect(pageSizeOf(0, 25)).toBe(25);
    expect(pageSizeOf("many", 25)).toBe(25);
  });
});
