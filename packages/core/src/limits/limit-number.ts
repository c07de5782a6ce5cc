/**
 * The one bound on every count a limit holds (a rate limit's `limit`, a quota's `limit`, credits
 * and their refill, the `cost` a request spends), whichever way it comes in: tiers at
 * `createKeyward`, `keys.setLimits`/`keys.update`, `imports.importKeys` (and so the CLI's imports),
 * and `verify`'s `cost`. Below it, every store keeps the number exactly: PostgreSQL's bigint, the
 * Redis scripts' `%d`, and a balance that one spend takes below zero stays a safe integer.
 */

/** 10^15: a thousand trillion requests or credits, well below 2^53 and PostgreSQL's bigint. */
export const maxLimitNumber = 1_000_000_000_000_000;

/** Why `value` is no count of at least `least` within the bound, or null when it is one. */
export function limitNumberProblem(value: unknown, least: number): string | null {
  if (typeof value !== "number" || !Number.isInteger(value) || value < least) {
    return `must be an integer of at least ${least}`;
  }
  if (value > maxLimitNumber) return `must be at most ${maxLimitNumber} (10^15)`;
  return null;
}
