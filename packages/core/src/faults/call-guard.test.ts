import { afterEach, describe, expect, it, vi } from "vitest";
import { callGuard } from "./call-guard.js";
import { StoreUnavailableError } from "./store-unavailable-error.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<never>(() => {});
const fails = () => Promise.reject(new Error("ECONNREFUSED"));

/** Whether `promise` has settled yet, read without awaiting it (its rejection is handled). */
function settlement(promise: Promise<unknown>): { settled: boolean } {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("callGuard", () => {
  it("passes answers and errors through", async () => {
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 50,
      circuitBreaker: false,
      onError: () => {},
    });
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
    // Fake timers: not before 30 ms, at 30 ms, whatever the machine's speed (the wall-clock
    // variant is in call-guard.timing.test.ts).
    vi.useFakeTimers();
    const errors: unknown[] = [];
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 30,
      circuitBreaker: false,
      onError: (e) => errors.push(e),
    });
    let answer: (value: number) => void = () => {};
    const late = guard.run(() => new Promise<number>((resolve) => (answer = resolve)));
    const outcome = settlement(late);
    await vi.advanceTimersByTimeAsync(29);
    expect(outcome.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.settled).toBe(true);
    await expect(late).rejects.toMatchObject({
      name: "StoreUnavailableError",
      kind: "timeout",
      store: "TestDB",
      message: "TestDB did not answer within 30 ms",
    });
    answer(1);
    await vi.advanceTimersByTimeAsync(5);
    expect(errors).toHaveLength(1);
    expect(guard.failing).toBe(true);
  });

  it("opens after consecutive failures, probes once per interval, and closes on success", async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let recovered = 0;
    const guard = callGuard({
      store: "TestDB",
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
    // Open: refused without sending, at once (settled with no time passing on the fake clock).
    const refused = [guard.run(down), guard.run(down)];
    const outcomes = refused.map(settlement);
    await vi.advanceTimersByTimeAsync(0);
    expect(outcomes.map((o) => o.settled)).toEqual([true, true]);
    await expect(refused[0]).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(refused[1]).rejects.toMatchObject({ kind: "unavailable" });
    expect(sent).toBe(2);
    expect(errors).toHaveLength(2);

    // After the interval one probe goes out; others keep failing fast while it is in flight.
    await vi.advanceTimersByTimeAsync(70);
    const probe = guard.run(never);
    const probed = settlement(probe);
    await expect(guard.run(down)).rejects.toMatchObject({ kind: "unavailable" });
    await vi.advanceTimersByTimeAsync(20);
    expect(probed.settled).toBe(true);
    await expect(probe).rejects.toMatchObject({ kind: "timeout" });
    expect(sent).toBe(2);

    await vi.advanceTimersByTimeAsync(70);
    await expect(guard.run(async () => "back")).resolves.toBe("back");
    expect(recovered).toBe(1);
    expect(guard.failing).toBe(false);
    await expect(guard.run(async () => "normal")).resolves.toBe("normal");
  });

  it("rejects settings that make no sense", () => {
    const onError = () => {};
    expect(() =>
      callGuard({ store: "TestDB", timeoutMs: 0, circuitBreaker: false, onError }),
    ).toThrow(TypeError);
    expect(() =>
      callGuard({
        store: "TestDB",
        timeoutMs: 10,
        circuitBreaker: { failureThreshold: 0 },
        onError,
      }),
    ).toThrow(TypeError);
  });
});

describe("callGuard's signal", () => {
  it("is aborted at the deadline, with the timeout error as its reason", async () => {
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 20,
      circuitBreaker: false,
      onError() {},
    });
    let seen: AbortSignal | undefined;
    const aborted: unknown[] = [];
    const late = guard.run((signal) => {
      seen = signal;
      signal.addEventListener("abort", () => aborted.push(signal.reason));
      return never();
    });
    const error = await late.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(aborted).toEqual([error]);

    // A call answered in time never sees its signal aborted.
    await guard.run(async (signal) => {
      seen = signal;
      return 1;
    });
    await sleep(30);
    expect(seen?.aborted).toBe(false);
  });
});

describe("callGuard's isFailure", () => {
  const outage = Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
  const answer = Object.assign(new Error("duplicate key"), { code: "23505" });
  const isFailure = (error: unknown) => (error as { code?: string }).code !== "23505";

  it("passes answers on without counting or reporting them, and they close the circuit", async () => {
    const errors: unknown[] = [];
    let recovered = 0;
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 50,
      circuitBreaker: { failureThreshold: 2, retryIntervalMs: 10_000 },
      isFailure,
      onError: (e) => errors.push(e),
      onRecovered: () => recovered++,
    });
    // However many answers come back, the circuit stays closed.
    for (let i = 0; i < 5; i++)
      await expect(guard.run(() => Promise.reject(answer))).rejects.toBe(answer);
    expect(errors).toEqual([]);
    expect(guard.failing).toBe(false);

    // One outage, then an answer: the database is up, the count starts again.
    await expect(guard.run(() => Promise.reject(outage))).rejects.toBe(outage);
    expect(guard.failing).toBe(true);
    await expect(guard.run(() => Promise.reject(answer))).rejects.toBe(answer);
    expect(guard.failing).toBe(false);
    expect(recovered).toBe(1);
    await expect(guard.run(() => Promise.reject(outage))).rejects.toBe(outage);
    await expect(guard.run(async () => "still closed")).resolves.toBe("still closed");
    expect(errors).toEqual([outage, outage]);
  });

  it("counts a timeout whatever isFailure says", async () => {
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 10,
      circuitBreaker: { failureThreshold: 1, retryIntervalMs: 10_000 },
      isFailure: () => false,
      onError() {},
    });
    await expect(guard.run(never)).rejects.toMatchObject({ kind: "timeout" });
    await expect(guard.run(async () => 1)).rejects.toMatchObject({ kind: "unavailable" });
  });
});
