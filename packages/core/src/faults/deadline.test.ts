import { describe, expect, it, vi } from "vitest";
import { withDeadline } from "./deadline.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const expired = () => new Error("too late");

describe("withDeadline", () => {
  it("passes an outcome that comes in time through", async () => {
    await expect(withDeadline(Promise.resolve(7), 50, expired)).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error("no")), 50, expired)).rejects.toThrow("no");
  });

  it("rejects with expired()'s error at the deadline, calling it once", async () => {
    // Fake timers: the deadline itself is asserted (not before 20 ms, at 20 ms), whatever the
    // machine's speed. The wall-clock variant is in deadline.timing.test.ts.
    vi.useFakeTimers();
    try {
      let calls = 0;
      let outcome: unknown;
      const result = withDeadline(new Promise(() => {}), 20, () => {
        calls++;
        return expired();
      });
      result.catch((error: unknown) => (outcome = error));
      await vi.advanceTimersByTimeAsync(19);
      expect(outcome).toBeUndefined();
      expect(calls).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      await expect(result).rejects.toThrow("too late");
      expect(calls).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("ignores a late outcome, a late rejection included", async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", record);
    try {
      let fail: (error: Error) => void = () => {};
      const work = new Promise<never>((_, reject) => (fail = reject));
      await expect(withDeadline(work, 10, expired)).rejects.toThrow("too late");
      fail(new Error("late"));
      await sleep(10);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
    }
  });
});
