import type { RateLimitPolicy } from "@keyward/core";
import { describe, expect, it } from "vitest";
import type { StepGroup, TimedDecision } from "./redis-steps.js";
import { stepBatcher } from "./step-batcher.js";

const policy: RateLimitPolicy = { algorithm: "gcra", limit: 10, windowMs: 1_000 };
const other: RateLimitPolicy = { algorithm: "fixed-window", limit: 5, windowMs: 1_000 };

/** A send that records each call and answers each request with its `now` as `remaining`. */
function recordingSend() {
  const calls: StepGroup[][] = [];
  const send = async (groups: readonly StepGroup[]): Promise<TimedDecision[][]> => {
    calls.push([...groups]);
    return groups.map((group) =>
      group.requests.map((request) => ({
        decision: { allowed: true, limit: 1, remaining: request.now, reset: 0, retryAfter: 0 },
        at: 0,
      })),
    );
  };
  return { calls, send };
}

describe("stepBatcher", () => {
  it("sends the requests of one turn together, grouped by principal and policy, in order", async () => {
    const { calls, send } = recordingSend();
    const batcher = stepBatcher(send, { cluster: false });
    const results = await Promise.all([
      batcher.step("key:a", policy, { now: 1 }),
      batcher.step("key:b", policy, { now: 2 }),
      batcher.step("key:a", policy, { now: 3 }),
      batcher.step("key:a", other, { now: 4 }),
    ]);
    expect(results.map((r) => r.decision.remaining)).toEqual([1, 2, 3, 4]);
    expect(calls).toHaveLength(1);
    expect(
      calls[0]!.map((g) => [g.bucket, g.policy.algorithm, g.requests.map((r) => r.now)]),
    ).toEqual([
      ["key:a", "gcra", [1, 3]],
      ["key:b", "gcra", [2]],
      ["key:a", "fixed-window", [4]],
    ]);

    // A later turn is a new call.
    await batcher.step("key:a", policy, { now: 5 });
    expect(calls).toHaveLength(2);
  });

  it("sends at most 16 requests per call", async () => {
    const { calls, send } = recordingSend();
    const batcher = stepBatcher(send, { cluster: false });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => batcher.step("key:a", policy, { now: i })),
    );
    expect(calls.map((groups) => groups[0]!.requests.length)).toEqual([16, 16, 8]);
  });

  it("keeps principals apart on a cluster (one slot per script)", async () => {
    const { calls, send } = recordingSend();
    const batcher = stepBatcher(send, { cluster: true });
    await Promise.all([
      batcher.step("key:a", policy, { now: 1 }),
      batcher.step("key:b", policy, { now: 2 }),
      batcher.step("key:a", policy, { now: 3 }),
    ]);
    expect(calls.map((groups) => groups.map((g) => g.bucket))).toEqual([["key:a"], ["key:b"]]);
  });

  it("fails every request of a failed call", async () => {
    const batcher = stepBatcher(async () => Promise.reject(new Error("down")), { cluster: false });
    const outcomes = await Promise.allSettled([
      batcher.step("key:a", policy, { now: 1 }),
      batcher.step("key:b", policy, { now: 2 }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
  });
});
