/**
 * Timing project (vitest.timing.config.ts): callGuard's deadline and open circuit on the wall
 * clock. The unit suite asserts the same under fake timers (call-guard.test.ts).
 */
import { describe, expect, it } from "vitest";
import { callGuard } from "./call-guard.js";

const fails = () => Promise.reject(new Error("ECONNREFUSED"));

describe("callGuard, on the wall clock", () => {
  it("gives up soon after the deadline", async () => {
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 30,
      circuitBreaker: false,
      onError() {},
    });
    const started = performance.now();
    await expect(guard.run(() => new Promise<number>(() => {}))).rejects.toMatchObject({
      kind: "timeout",
    });
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("refuses at once while open", async () => {
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 20,
      circuitBreaker: { failureThreshold: 2, retryIntervalMs: 60 },
      onError() {},
    });
    await expect(guard.run(fails)).rejects.toThrow("ECONNREFUSED");
    await expect(guard.run(fails)).rejects.toThrow("ECONNREFUSED");
    const started = performance.now();
    await expect(guard.run(fails)).rejects.toMatchObject({ kind: "unavailable" });
    await expect(guard.run(fails)).rejects.toMatchObject({ kind: "unavailable" });
    expect(performance.now() - started).toBeLessThan(10);
  });
});
