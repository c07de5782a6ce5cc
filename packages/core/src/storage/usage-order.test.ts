import { describe, expect, it } from "vitest";
import { compareDailyUsage, compareEndpointUsage, sortKeyUsage } from "./usage-order.js";
import type { KeyUsage } from "./usage-store.js";

describe("sortKeyUsage", () => {
  it("sorts endpoints by count descending, then method and route in code-unit order", () => {
    const report: KeyUsage = {
      keyId: "key_1",
      totalRequests: 12,
      lastUsedAt: 1,
      endpoints: [
        { method: "PUT", route: "/a", count: 2 },
        { method: "GET", route: "/b", count: 2 },
        { method: "GET", route: "/B", count: 2 },
        { method: "GET", route: "/a", count: 5 },
        { method: "DELETE", route: "/z", count: 1 },
      ],
      daily: [],
    };
    sortKeyUsage(report);
    expect(report.endpoints).toEqual([
      { method: "GET", route: "/a", count: 5 },
      // "/B" before "/b": code units, where a locale comparison would put them the other way.
      { method: "GET", route: "/B", count: 2 },
      { method: "GET", route: "/b", count: 2 },
      { method: "PUT", route: "/a", count: 2 },
      { method: "DELETE", route: "/z", count: 1 },
    ]);
  });

  it("sorts days ascending, in place, and returns the same report", () => {
    const report: KeyUsage = {
      keyId: "key_1",
      totalRequests: 6,
      lastUsedAt: 1,
      endpoints: [],
      daily: [
        { date: "2026-01-10", count: 1 },
        { date: "2025-12-31", count: 2 },
        { date: "2026-01-02", count: 3 },
      ],
    };
    expect(sortKeyUsage(report)).toBe(report);
    expect(report.daily.map((day) => day.date)).toEqual(["2025-12-31", "2026-01-02", "2026-01-10"]);
  });

  it("exposes the comparators it sorts with", () => {
    expect(
      compareEndpointUsage(
        { method: "GET", route: "/a", count: 1 },
        { method: "GET", route: "/a", count: 1 },
      ),
    ).toBe(0);
    expect(
      compareDailyUsage({ date: "2026-01-01", count: 9 }, { date: "2026-01-02", count: 1 }),
    ).toBe(-1);
  });
});
