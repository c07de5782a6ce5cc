/** Timing project (vitest.timing.config.ts): readBearer stays linear on long hostile input. */
import { describe, expect, it } from "vitest";
import { readBearer } from "./bearer.js";

describe("readBearer, on the wall clock", () => {
  it("stays linear on long hostile input", () => {
    const hostile = `Bearer ${"a".repeat(100_000)}${"=".repeat(100_000)}!`;
    const started = performance.now();
    expect(readBearer(hostile)).toBeNull();
    expect(performance.now() - started).toBeLessThan(100);
  });
});
