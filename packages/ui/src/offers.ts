/**
 * What the create form, the rotate confirmation and the list offer, from what the host set and what
 * the server said: pure functions, so the rules are tested without a browser.
 */

/**
 * The tiers a key may be given: those at or below `accountTier` in `tiers` (lowest first). All of
 * them when the account's tier is unknown or not in the list: the server still refuses a tier
 * above the account's, and the refusal is worded.
 */
export function grantableTiers(
  tiers: readonly string[],
  accountTier: string | undefined,
): string[] {
  const index = accountTier === undefined ? -1 : tiers.indexOf(accountTier);
  return index < 0 ? [...tiers] : tiers.slice(0, index + 1);
}

/** The grace periods offered when the server allows them and the host named none: 1 h, 1 d, 7 d. */
export const defaultGracePeriods: readonly number[] = [3_600, 86_400, 604_800];

/**
 * The grace periods the rotate confirmation offers: the host's own; else those of the defaults the
 * server allows (`maxGracePeriodSeconds`, from its OpenAPI document); else none (no choice).
 */
export function offeredGracePeriods(
  hostPeriods: readonly number[],
  maxGracePeriodSeconds: number | undefined,
): number[] {
  if (hostPeriods.length > 0) return [...hostPeriods];
  if (!maxGracePeriodSeconds) return [];
  return defaultGracePeriods.filter((seconds) => seconds <= maxGracePeriodSeconds);
}

/** A `page-size` as the list endpoint takes it: a whole number from 1 to 1,000, else `fallback`. */
export function pageSizeOf(value: unknown, fallback: number): number {
  const size = Math.floor(Number(value));
  return Number.isFinite(size) && size >= 1 ? Math.min(size, 1000) : fallback;
}
