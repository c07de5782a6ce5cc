import { describe, expect, it } from "vitest";
import { compareCodeUnits } from "./code-unit-order.js";

describe("compareCodeUnits", () => {
  it("orders by UTF-16 code unit, not by locale: digits, then upper case, then lower case", () => {
    const words = ["b", "a", "B", "A", "_", "1", "ab", "a"];
    expect(words.sort(compareCodeUnits)).toEqual(["1", "A", "B", "_", "a", "a", "ab", "b"]);
  });

  it("gives 0 for equal strings and opposite signs when swapped", () => {
    expect(compareCodeUnits("GET", "GET")).toBe(0);
    expect(compareCodeUnits("GET", "PUT")).toBe(-1);
    expect(compareCodeUnits("PUT", "GET")).toBe(1);
  });
});
