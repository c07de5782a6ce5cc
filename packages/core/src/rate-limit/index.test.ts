import { describe, expect, it } from "vitest";
import { seededRandom } from "../../test/support/rate-limit.js";
import { rateLimitAlgorithms, stepRateLimit } from "./index.js";
import type {
  RateLimitAlgorithmName,
  RateLimitDecision,
  RateLimitPolicy,
  RateLimitState,
} from "./types.js";

const start = Date.parse("2026-01-01T00:00:00Z");
const names = Object.keys(rateLimitAlgorithms) as RateLimitAlgorithmName[];

/** Request times: bursts within one millisecond, short gaps, and the odd idle stretch. */
function schedule(seed: number, windowMs: number, length: number): number[] {
  const next = seededRandom(seed);
  const times: number[] = [];
  let now = start + Math.floor(next() * windowMs);
  for (let i = 0; i < length; i++) {
    const r = next();
    if (r > 0.5) {
      now +=
        r > 0.97 ? Math.floor(next() * 3 * windowMs) : 1 + Math.floor((next() * windowMs) / 20);
    }
    times.push(now);
  }
  return times;
}

/** Requests admitted in a row at `now` from `state`, up to `max`. */
function admissibleAt(state: RateLimitState, now: number, policy: RateLimitPolicy, max: number) {
  let count = 0;
  let current = state;
  while (count < max) {
    const step = stepRateLimit(current, now, policy);
    if (!step.decision.allowed) break;
    current = step.state;
    count++;
  }
  return count;
}

function run(policy: RateLimitPolicy, times: number[]) {
  let state: RateLimitState | undefined;
  return times.map((now) => {
    const step = stepRateLimit(state, now, policy);
    const before = state;
    state = step.state;
    return { now, before, ...step };
  });
}

/** The most admissions in any `windowMs` consecutive milliseconds, for sorted admission times. */
function busiestWindow(admitted: number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < admitted.length; last++) {
    while (admitted[last]! - admitted[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

const windowBound: Record<RateLimitAlgorithmName, (p: RateLimitPolicy) => number> = {
  "fixed-window": ({ limit }) => 2 * limit,
  "sliding-window": ({ limit, windowMs }) =>
    limit + Math.floor((limit * (windowMs - 2)) / windowMs),
  "token-bucket": ({ limit, windowMs }) => limit + Math.floor((limit * (windowMs - 1)) / windowMs),
  gcra: ({ limit, windowMs }) => limit + Math.floor((limit * (windowMs - 1)) / windowMs),
};

const configs = [
  { limit: 5, windowMs: 1_000, seed: 11 },
  { limit: 7, windowMs: 1_000, seed: 12 },
  { limit: 3, windowMs: 10, seed: 13 },
  { limit: 8, windowMs: 10, seed: 14 },
];

describe("stepRateLimit", () => {
  it("dispatches on the policy's algorithm", () => {
    for (const algorithm of names) {
      const policy = { algorithm, limit: 2, windowMs: 1_000 };
      expect(stepRateLimit(undefined, start, policy)).toEqual(
        rateLimitAlgorithms[algorithm](undefined, start, policy),
      );
    }
  });

  it("rejects an unknown algorithm, naming it", () => {
    const policy = { algorithm: "leaky", limit: 1, windowMs: 1 } as unknown as RateLimitPolicy;
    expect(() => stepRateLimit(undefined, start, policy)).toThrow(
      new TypeError('Unknown rate-limit algorithm "leaky"'),
    );
    const inherited = { ...policy, algorithm: "toString" } as unknown as RateLimitPolicy;
    expect(() => stepRateLimit(undefined, start, inherited)).toThrow(TypeError);
  });
});

describe.each(names)("%s on random schedules", (algorithm) => {
  it.each(configs)(
    "decides with exact remaining, reset, retryAfter and expiresAt (%o)",
    ({ limit, windowMs, seed }) => {
      const policy: RateLimitPolicy = { algorithm, limit, windowMs };
      // Every claim a decision makes, checked by stepping on from its state; plain checks collected
      // and asserted once, since thousands of `expect` calls would dominate the run time.
      const broken: string[] = [];
      const check = (ok: boolean, what: string, now: number) => {
        if (!ok) broken.push(`${what} at ${now - start}`);
      };
      for (const { now, state, decision, expiresAt } of run(
        policy,
        schedule(seed, windowMs, 1_500),
      )) {
        const { allowed, remaining, reset, retryAfter } = decision;
        check(decision.limit === limit, "limit", now);
        check(Number.isInteger(remaining) && remaining >= 0, "remaining is a whole number", now);
        check(Number.isInteger(reset) && Number.isInteger(retryAfter), "integer times", now);
        // remaining: exactly that many more are admitted right now.
        check(admissibleAt(state, now, policy, limit + 1) === remaining, "remaining", now);
        if (allowed) {
          check(retryAfter === 0 && remaining < limit, "allowed values", now);
        } else {
          // retryAfter: refused a millisecond before, admitted at it.
          check(retryAfter > 0, "retryAfter > 0", now);
          check(
            admissibleAt(state, now + retryAfter - 1, policy, 1) === 0,
            "retryAfter early",
            now,
          );
          check(admissibleAt(state, now + retryAfter, policy, 1) === 1, "retryAfter late", now);
        }
        // reset: the whole limit is available at it, and not a millisecond before.
        check(reset > now, "reset in the future", now);
        check(admissibleAt(state, reset, policy, limit) === limit, "full at reset", now);
        check(admissibleAt(state, reset - 1, policy, limit) < limit, "not full before reset", now);
        // expiresAt: from then on, the state decides exactly as no state would.
        for (const later of [expiresAt, expiresAt + 1, expiresAt + 7 * windowMs]) {
          const fromState = JSON.stringify(stepRateLimit(state, later, policy));
          check(
            fromState === JSON.stringify(stepRateLimit(undefined, later, policy)),
            "expiresAt",
            now,
          );
        }
      }
      expect(broken).toEqual([]);
    },
  );

  it.each(configs)(
    "stays within its bound in every window-long interval (%o)",
    ({ limit, windowMs, seed }) => {
      const policy: RateLimitPolicy = { algorithm, limit, windowMs };
      const steps = run(policy, schedule(seed, windowMs, 20_000));
      const admitted = steps.filter((s) => s.decision.allowed).map((s) => s.now);
      expect(busiestWindow(admitted, windowMs)).toBeLessThanOrEqual(windowBound[algorithm](policy));
      // A refused request leaves the state as it was: from either, the future is the same.
      const consumed = steps.filter(({ before, now, state, decision }) => {
        if (decision.allowed || before === undefined) return false;
        const later = now + 1 + (now % windowMs);
        return (
          JSON.stringify(stepRateLimit(state, later, policy)) !==
          JSON.stringify(stepRateLimit(before, later, policy))
        );
      });
      expect(consumed).toEqual([]);
    },
  );
});

describe("token bucket and GCRA", () => {
  it.each(configs)(
    "make identical decisions on the same schedule (%o)",
    ({ limit, windowMs, seed }) => {
      const times = schedule(seed, windowMs, 20_000);
      const bucket = run({ algorithm: "token-bucket", limit, windowMs }, times);
      const cell = run({ algorithm: "gcra", limit, windowMs }, times);
      const view = (s: { decision: RateLimitDecision; expiresAt: number }) => [
        s.decision,
        s.expiresAt,
      ];
      expect(cell.map(view)).toEqual(bucket.map(view));
    },
  );

  it.each(configs)(
    "admit at most limit + ⌊span × limit / windowMs⌋ between any two admissions (%o)",
    ({ limit, windowMs, seed }) => {
      const steps = run({ algorithm: "gcra", limit, windowMs }, schedule(seed, windowMs, 3_000));
      const admitted = steps.filter((s) => s.decision.allowed).map((s) => s.now);
      let worst = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < admitted.length; i++) {
        for (let j = i; j < admitted.length && admitted[j]! - admitted[i]! < 4 * windowMs; j++) {
          const span = admitted[j]! - admitted[i]!;
          worst = Math.max(worst, j - i + 1 - (limit + Math.floor((span * limit) / windowMs)));
        }
      }
      // Never over the bound, and reached: a full bucket spent, then every token as it trickles in.
      expect(worst).toBe(0);
    },
  );
});
