import { describe, expect, it } from "vitest";
import { periodEnd, periodStart } from "./calendar-period.js";

const at = (iso: string) => Date.parse(iso);

describe("UTC calendar periods", () => {
  it("an ISO week runs from Monday 00:00 UTC to the next Monday, whatever day it is asked on", () => {
    // 2026-12-07 is a Monday: every instant of that week maps to it, none of the weeks around it.
    for (const iso of [
      "2026-12-07T00:00:00.000Z",
      "2026-12-09T12:34:56.789Z",
      "2026-12-10T00:00:00.000Z", // a Thursday, the weekday of 1970-01-01
      "2026-12-13T23:59:59.999Z",
    ]) {
      expect(periodStart(at(iso), "week"), iso).toBe(at("2026-12-07T00:00:00Z"));
      expect(periodEnd(at(iso), "week"), iso).toBe(at("2026-12-14T00:00:00Z"));
    }
    expect(periodStart(at("2026-12-06T23:59:59.999Z"), "week")).toBe(at("2026-11-30T00:00:00Z"));
    // Across a year: 2026-12-31 (Thursday) is in the week of Monday 2026-12-28, ending 2027-01-04.
    expect(periodStart(at("2026-12-31T08:00:00Z"), "week")).toBe(at("2026-12-28T00:00:00Z"));
    expect(periodEnd(at("2027-01-03T23:59:59.999Z"), "week")).toBe(at("2027-01-04T00:00:00Z"));
    // Before 1970 too (negative days).
    expect(periodStart(at("1969-12-31T12:00:00Z"), "week")).toBe(at("1969-12-29T00:00:00Z"));
  });

  it("days and months are as before", () => {
    expect(periodStart(at("2026-02-14T10:00:00Z"), "day")).toBe(at("2026-02-14T00:00:00Z"));
    expect(periodEnd(at("2026-02-14T10:00:00Z"), "day")).toBe(at("2026-02-15T00:00:00Z"));
    expect(periodStart(at("2028-02-29T10:00:00Z"), "month")).toBe(at("2028-02-01T00:00:00Z"));
    expect(periodEnd(at("2028-02-29T10:00:00Z"), "month")).toBe(at("2028-03-01T00:00:00Z"));
  });
});
