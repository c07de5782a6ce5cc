/**
 * A call guard reports each call (operation, outcome) and each change of its breaker to the
 * observer a store attaches (`observation/store-observer.ts`).
 */
import { describe, expect, it } from "vitest";
import type { StoreObserver } from "../observation/store-observer.js";
import { callGuard } from "./call-guard.js";

function recorder() {
  const events: string[] = [];
  const observer: StoreObserver = {
    callStarted(store, operation) {
      events.push(`start ${store} ${operation}`);
      return (outcome) => events.push(`end ${operation} ${outcome}`);
    },
    breakerChanged: (store, open) => events.push(`breaker ${store} ${open ? "open" : "closed"}`),
  };
  return { events, observer };
}

describe("callGuard's observer", () => {
  it("hears every call's outcome and the breaker opening and closing", async () => {
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 20,
      circuitBreaker: { failureThreshold: 2, retryIntervalMs: 0 },
      isFailure: (error) => (error as Error).message !== "constraint",
      onError: () => {},
    });
    const { events, observer } = recorder();
    guard.attachObserver(observer);
    await guard.run(async () => 1, "read");
    await guard.run(() => Promise.reject(new Error("constraint")), "insert").catch(() => {});
    await guard.run(() => Promise.reject(new Error("ECONNREFUSED")), "read").catch(() => {});
    expect(guard.open).toBe(false);
    await guard.run(() => new Promise(() => {}), "slow").catch(() => {});
    expect(guard.open).toBe(true);
    await guard.run(async () => 2).catch(() => {}); // the probe (retry interval 0) gets through
    expect(guard.open).toBe(false);
    expect(events).toEqual([
      "breaker TestDB closed",
      "start TestDB read",
      "end read ok",
      "start TestDB insert",
      "end insert error",
      "start TestDB read",
      "end read failure",
      "start TestDB slow",
      "breaker TestDB open",
      "end slow timeout",
      "start TestDB call",
      "breaker TestDB closed",
      "end call ok",
    ]);
  });

  it("reports calls the open breaker refused without sending them", async () => {
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 50,
      circuitBreaker: { failureThreshold: 1, retryIntervalMs: 60_000 },
      onError: () => {},
    });
    await guard.run(() => Promise.reject(new Error("down"))).catch(() => {});
    const { events, observer } = recorder();
    guard.attachObserver(observer); // told at once that it is open
    let sent = false;
    await expect(
      guard.run(async () => {
        sent = true;
      }, "consume"),
    ).rejects.toThrow("TestDB is unavailable");
    expect(sent).toBe(false);
    expect(events).toEqual([
      "breaker TestDB open",
      "start TestDB consume",
      "end consume circuit_open",
    ]);
  });

  it("tells every observer attached, each once however often it is attached", async () => {
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 50,
      circuitBreaker: {},
      onError: () => {},
    });
    const first = recorder();
    const second = recorder();
    guard.attachObserver(first.observer);
    guard.attachObserver(second.observer);
    guard.attachObserver(first.observer);
    await guard.run(async () => 1, "read");
    for (const { events } of [first, second]) {
      expect(events).toEqual(["breaker TestDB closed", "start TestDB read", "end read ok"]);
    }
  });

  it("a throwing observer fails no call", async () => {
    const guard = callGuard({
      store: "TestDB",
      timeoutMs: 50,
      circuitBreaker: {},
      onError: () => {},
    });
    guard.attachObserver({
      callStarted() {
        throw new Error("observer broke");
      },
      breakerChanged() {
        throw new Error("observer broke");
      },
    });
    await expect(guard.run(async () => "answer")).resolves.toBe("answer");
    guard.attachObserver({
      callStarted: () => () => {
        throw new Error("observer broke");
      },
      breakerChanged: () => {},
    });
    await expect(guard.run(async () => "answer")).resolves.toBe("answer");
  });
});
