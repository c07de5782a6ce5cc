/**
 * Rate limits as users write them (`{ limit: 60, window: "1m" }`) and their conversion to the
 * `RateLimitPolicy` the algorithms take.
 */
import { limitNumberProblem } from "../limits/limit-number.js";
import { rateLimitAlgorithms } from "./index.js";
import type { RateLimitAlgorithmName, RateLimitPolicy } from "./types.js";

/** A tier's rate limit as configured: `limit` requests per `window`. */
export interface RateLimitConfig {
  /** Requests admitted per window (for the token bucket and GCRA: the burst). A positive integer. */
  limit: number;
  /** `"500ms"`, `"30s"`, `"1m"`, `"1h"`, `"1d"`, or a number of milliseconds. */
  window: string | number;
  /** Default `"sliding-window"`. */
  algorithm?: RateLimitAlgorithmName;
}

const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const durationPattern = /^(\d+)(?:\.(\d+))?\s*(ms|s|m|h|d)$/;

/**
 * Milliseconds in a duration: a number is taken as milliseconds; a string is a non-negative
 * decimal and one unit among `ms`, `s`, `m`, `h`, `d`. Throws a `TypeError` naming the value
 * otherwise.
 *
 * @example
 * parseDuration("1m"); // 60000
 * parseDuration("1.5s"); // 1500
 * parseDuration(250); // 250
 */
export function parseDuration(value: string | number): number {
  if (typeof value === "number") {
    if (Number.isFinite(value) && value >= 0) return value;
    throw new TypeError(
      `Invalid duration ${String(value)}: a number of milliseconds must be finite and not negative`,
    );
  }
  const match = typeof value === "string" ? durationPattern.exec(value.trim()) : null;
  if (!match) {
    throw new TypeError(
      `Invalid duration ${describe(value)}: expected a number of milliseconds or a string such as "500ms", "30s", "1m", "1h" or "1d"`,
    );
  }
  const [, whole, decimals = "", unit] = match as unknown as [
    string,
    string,
    string | undefined,
    keyof typeof unitMs,
  ];
  // Whole and decimal parts apart, so "1.1s" is 1100 and not 1100.0000000000002.
  const fraction = decimals === "" ? 0 : (Number(decimals) * unitMs[unit]) / 10 ** decimals.length;
  return Number(whole) * unitMs[unit] + fraction;
}

/**
 * Validates a configured rate limit and resolves it to a policy.
 *
 * @example
 * toPolicy({ limit: 60, window: "1m" });
 * // { algorithm: "sliding-window", limit: 60, windowMs: 60000 }
 */
export function toPolicy(config: RateLimitConfig): RateLimitPolicy {
  const { limit, window, algorithm = "sliding-window" } = config;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(
      `Invalid rate limit ${describe(limit)}: \`limit\` must be a positive integer`,
    );
  }
  const limitProblem = limitNumberProblem(limit, 1);
  if (limitProblem !== null) {
    throw new TypeError(`Invalid rate limit ${describe(limit)}: \`limit\` ${limitProblem}`);
  }
  const windowMs = parseDuration(window);
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) {
    throw new TypeError(
      `Invalid rate-limit window ${describe(window)}: it must be at least 1ms and a whole number of milliseconds`,
    );
  }
  if (!Number.isSafeInteger(limit * windowMs)) {
    // The algorithms count in units of 1/windowMs of a request; beyond this they would round.
    throw new TypeError(
      `Invalid rate limit ${limit} per ${describe(window)}: \`limit\` × window in ms must stay below 2^53`,
    );
  }
  if (typeof algorithm !== "string" || !Object.hasOwn(rateLimitAlgorithms, algorithm)) {
    throw new TypeError(
      `Invalid rate-limit algorithm ${describe(algorithm)}: expected one of ${Object.keys(rateLimitAlgorithms).join(", ")}`,
    );
  }
  return { algorithm, limit, windowMs };
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}
