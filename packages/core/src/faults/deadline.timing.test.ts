/**
 * Timing project (vitest.timing.config.ts): withDeadline's rejection on the wall clock. The unit
 * suite asserts the deadline under fake timers (deadline.test.ts).
 */
import { describe, expect, it } from "vitest";
import { withDeadline } from "./deadline.js";

describe("withDeadline, on the wall clock", () => {
  it("rejects soon after the deadline", async () => {
    const started = performance.now();
    const result = withDeadline(new Promise(() => {}), 20, () => new Error("too late"));
    await expect(result).rejects.toThrow("too late");
    expect(performance.now() - started).toBeLessThan(500);
  });
});
