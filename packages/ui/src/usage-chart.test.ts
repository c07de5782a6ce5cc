import { describe, expect, it } from "vitest";
import type { UsageReport } from "./types.js";
import { dailySeries } from "./usage-chart.js";

const report = (daily: UsageReport["daily"]): UsageReport => ({
  keyId: "key_x",
  totalRequests: daily.reduce((sum, day) => sum + day.count, 0),
  lastUsedAt: null,
  endpoints: [],
  daily,
});

describe("dailySeries", () => {
  it("is the last 14 UTC days ending today, with 0 for days without requests", () => {
    const series = dailySeries(
      report([
        { date: "2026-11-20", count: 3 },
        { date: "2026-11-01", count: 9 }, // before the window
      ]),
      new Date("2026-11-23T23:30:00Z"),
    );
    expect(series).toHaveLength(14);
    expect(series[0]).toEqual({ date: "2026-11-10", count: 0 });
    expect(series.at(-1)).toEqual({ date: "2026-11-23", count: 0 });
    expect(series.find((day) => day.date === "2026-11-20")).toEqual({
      date: "2026-11-20",
      count: 3,
    });
    expect(series.reduce((sum, day) => sum + day.count, 0)).toBe(3);
  });

  it("ends at the report's latest day when the browser's clock is behind the server's", () => {
    const series = dailySeries(
      report([{ date: "2026-12-01", count: 2 }]),
      new Date("2026-11-30T23:59:00Z"),
      3,
    );
    expect(series).toEqual([
      { date: "2026-11-29", count: 0 },
      { date: "2026-11-30", count: 0 },
      { date: "2026-12-01", count: 2 },
    ]);
  });

  it("crosses month and year boundaries by calendar day", () => {
    const series = dailySeries(report([]), new Date("2027-01-01T00:00:00Z"), 3);
    expect(series.map((day) => day.date)).toEqual(["2026-12-30", "2026-12-31", "2027-01-01"]);
  });
});
