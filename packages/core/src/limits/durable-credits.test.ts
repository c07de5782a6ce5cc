import { describe, expect, it } from "vitest";
import { creditCheckpoints, creditsStateOf, isNewerCredits } from "./durable-credits.js";
import type { LayerDecision, LimitLayer } from "./types.js";

const credits = (
  bucket: string,
  grantedAt: number,
  refill?: { amount: number; period: "day" | "month" },
): LimitLayer => ({
  layer: "credits",
  bucket,
  cost: 1,
  remaining: 100,
  grantedAt,
  ...(refill ? { refill } : {}),
});
const admitted = (remaining: number, reset = 0): LayerDecision => ({
  layer: "credits",
  allowed: true,
  limit: 100,
  remaining,
  reset,
  retryAfter: 0,
});

describe("isNewerCredits: the latest state of a credit bucket, whatever order it is seen in", () => {
  it("prefers a later grant, then a later refill period, then a lower balance", () => {
    expect(isNewerCredits([2, 100, 0], [1, 5, 0])).toBe(true);
    expect(isNewerCredits([1, 5, 0], [2, 100, 0])).toBe(false);
    expect(isNewerCredits([1, 100, 20], [1, 5, 10])).toBe(true);
    expect(isNewerCredits([1, 5, 10], [1, 100, 20])).toBe(false);
    expect(isNewerCredits([1, 4, 10], [1, 5, 10])).toBe(true);
    expect(isNewerCredits([1, 6, 10], [1, 5, 10])).toBe(false);
    expect(isNewerCredits([1, 5, 10], [1, 5, 10])).toBe(false);
  });

  it("replaces nothing kept, and a kept state of another shape", () => {
    expect(isNewerCredits([1, 5, 0], undefined)).toBe(true);
    expect(isNewerCredits([1, 5, 0], [])).toBe(true);
    expect(isNewerCredits([1, 5, 0], [7, 7])).toBe(true);
  });
});

describe("creditsStateOf", () => {
  it("reads the refill period from the decision's reset", () => {
    const monthly = credits("credits:k", 1, { amount: 50, period: "month" });
    expect(creditsStateOf(monthly as never, admitted(12, Date.UTC(2026, 11, 1)))).toEqual([
      1,
      12,
      Date.UTC(2026, 10, 1),
    ]);
    const daily = credits("credits:k", 1, { amount: 50, period: "day" });
    expect(creditsStateOf(daily as never, admitted(3, Date.UTC(2026, 10, 28)))).toEqual([
      1,
      3,
      Date.UTC(2026, 10, 27),
    ]);
  });

  it("has no refill period without a refill", () => {
    expect(creditsStateOf(credits("credits:k", 9) as never, admitted(40))).toEqual([9, 40, 0]);
  });
});

describe("creditCheckpoints", () => {
  const quota: LimitLayer = { layer: "quota", bucket: "quota:o", limit: 5, period: "day" };

  it("saves the latest state of each credit bucket, and nothing of other layers", async () => {
    const saved: unknown[] = [];
    const checkpoints = creditCheckpoints({
      save: async (states) => {
        saved.push(states);
      },
      intervalMs: 60_000,
      onError: () => {},
    });
    const layers = [quota, credits("credits:a", 1)];
    checkpoints.note(layers, [admitted(1), admitted(90)]);
    checkpoints.note(layers, [admitted(1), admitted(88)]);
    // Seen late from another request's reply: older than 88, so not kept.
    checkpoints.note(layers, [admitted(1), admitted(89)]);
    checkpoints.note([credits("credits:b", 1)], [admitted(7)]);
    await checkpoints.save();
    expect(saved).toEqual([
      [
        { bucket: "credits:a", state: [1, 88, 0] },
        { bucket: "credits:b", state: [1, 7, 0] },
      ],
    ]);
    await checkpoints.save();
    expect(saved).toHaveLength(1);
    await checkpoints.close();
  });

  it("saves nothing of credits that start from nothing (a budgets hold's own layer)", async () => {
    const saved: unknown[] = [];
    const checkpoints = creditCheckpoints({
      save: async (states) => {
        saved.push(states);
      },
      intervalMs: 60_000,
      onError: () => {},
    });
    const hold: LimitLayer = {
      layer: "credits",
      bucket: "hold:h",
      cost: -40,
      remaining: 0,
      grantedAt: 0,
    };
    checkpoints.note([credits("credits:a", 1), hold], [admitted(60), admitted(40)]);
    // A grant of 0 made at a time of its own is a grant like any other: kept.
    checkpoints.note([{ ...hold, bucket: "credits:z", grantedAt: 5 }], [admitted(0)]);
    await checkpoints.save();
    expect(saved).toEqual([
      [
        { bucket: "credits:a", state: [1, 60, 0] },
        { bucket: "credits:z", state: [5, 0, 0] },
      ],
    ]);
    await checkpoints.close();
  });

  it("keeps what a failed save held for the next one, unless something newer came meanwhile", async () => {
    let fail = true;
    const saved: unknown[] = [];
    const checkpoints = creditCheckpoints({
      save: async (states) => {
        if (fail) throw new Error("database down");
        saved.push(states);
      },
      intervalMs: 60_000,
      onError: () => {},
    });
    checkpoints.note([credits("credits:a", 1)], [admitted(50)]);
    checkpoints.note([credits("credits:b", 1)], [admitted(20)]);
    const failing = checkpoints.save();
    checkpoints.note([credits("credits:a", 1)], [admitted(49)]);
    await expect(failing).rejects.toThrow("database down");
    fail = false;
    await checkpoints.close();
    expect(saved).toEqual([
      [
        { bucket: "credits:a", state: [1, 49, 0] },
        { bucket: "credits:b", state: [1, 20, 0] },
      ],
    ]);
  });

  it("saves on its own every interval, and on close", async () => {
    const saved: unknown[] = [];
    const checkpoints = creditCheckpoints({
      save: async (states) => {
        saved.push(states);
      },
      intervalMs: 20,
      onError: () => {},
    });
    checkpoints.note([credits("credits:a", 1)], [admitted(5)]);
    await expect.poll(() => saved.length).toBe(1);
    checkpoints.note([credits("credits:a", 1)], [admitted(4)]);
    await checkpoints.close();
    expect(saved.at(-1)).toEqual([{ bucket: "credits:a", state: [1, 4, 0] }]);
  });
});
