import { describe, expect, it } from "vitest";
import { callGuard } from "./call-guard.js";
import { RedisStoreError } from "./redis-store-error.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<never>(() => {});
const fails = () => Promise.reject(new Error("ECONNREFUSED"));

describe("callGuard", () => {
  it("passes answers and errors through", async () => {
    const guard = callGuard({ timeoutMs: 50, circuitBreaker: false, onError: () => {} });
    await expect(guard.run(async () => 42)).resolves.toBe(42);
    await expect(guard.run(fails)).rejects.toThrow("ECONNREFUSED");
    // A call that throws synchronously is a failure like any other.
    await expect(
      guard.run(() => {
        throw new Error("sync");
      }),
    ).rejects.toThrow("sync");
  });

  it("gives up at the deadline, and ignores a late answer", async () => {
    const errors: unknown[] = [];
    const guard = callGuard({
      timeoutMs: 30,
      circuitBreaker: false,
      onError: (e) => errors.push(e),
    });
    const started = performance.now();
    let answer: (value: number) => void = () => {};
    const late = guard.run(() => new Promise<number>((resolve) => (answer = resolve)));
    await expect(late).rejects.toMatchObject({ name: "RedisStoreError", reason: "timeout" });
    expect(performance.now() - started).toBeLessThan(200);
    answer(1);
    await sleep(5);
    expect(errors).toHaveLength(1);
    expect(guard.failing).toBe(true);
  });

  it("opens after consecutive failures, probes once per interval, and closes on success", async () => {
    const errors: unknown[] = [];
    let recovered = 0;
    const guard = callGuard({
      timeoutMs: 20,
      circuitBreaker: { failureThreshold: 2, retryIntervalMs: 60 },
      onError: (e) => errors.push(e),
      onRecovered: () => recovered++,
    });
    let sent = 0;
    const down = () => {
      sent++;
      return fails();
    };
    await expect(guard.run(down)).rejects.toThrow("ECONNREFUSED");
    await expect(guard.run(down)).rejects.toThrow("ECONNREFUSED");
    // Open: refused without sending, at once.
    const started = performance.now();
    await expect(guard.run(down)).rejects.toBeInstanceOf(RedisStoreError);
    await expect(guard.run(down)).rejects.toMatchObject({ reason: "unavailable" });
    expect(performance.now() - started).toBeLessThan(10);
    expect(sent).toBe(2);
    expect(errors).toHaveLength(2);

    // After the interval one probe goes out; others keep failing fast while it is in flight.
    await sleep(70);
    const probe = guard.run(never);
    await expect(guard.run(down)).rejects.toMatchObject({ reason: "unavailable" });
    await expect(probe).rejects.toMatchObject({ reason: "timeout" });
    expect(sent).toBe(2);

    await sleep(70);
    await expect(guard.run(async () => "back")).resolves.toBe("back");
    expect(recovered).toBe(1);
    expect(guard.failing).toBe(false);
    await expect(guard.run(async () => "normal")).resolves.toBe("normal");
  });

  it("rejects settings that make no sense", () => {
    const onError = () => {};
    expect(() => callGuard({ timeoutMs: 0, circuitBreaker: false, onError })).toThrow(TypeError);
    expect(() =>
      callGuard({ timeoutMs: 10, circuitBreaker: { failureThreshold: 0 }, onError }),
    ).toThrow(TypeError);
  });
});
