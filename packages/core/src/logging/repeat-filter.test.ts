import { describe, expect, it } from "vitest";
import { repeatFilter } from "./repeat-filter.js";

describe("repeatFilter", () => {
  it("logs the same failure once per interval, then says how many were left out", () => {
    const filter = repeatFilter(1_000);
    const down = new Error("connection refused");
    expect(filter.admit("request failed (500)", down, 0)).toBe("");
    for (let t = 1; t < 1_000; t += 100)
      expect(filter.admit("request failed (500)", down, t)).toBeNull();
    expect(filter.admit("request failed (500)", down, 1_000)).toBe(
      " (10 more like it since it was last logged)",
    );
    // A different failure is logged at once.
    expect(filter.admit("request failed (500)", new Error("timeout"), 1_001)).toBe("");
  });

  it("stays bounded however many distinct failures there are", () => {
    const filter = repeatFilter(60_000);
    for (let i = 0; i < 1_000; i++) expect(filter.admit(`failure ${i}`, undefined, i)).toBe("");
    // The earliest were forgotten, so they are logged again rather than counted.
    expect(filter.admit("failure 0", undefined, 2_000)).toBe("");
  });
});
