/**
 * Validation of quotas and credits as a host writes them: at `createKeyward` for tiers, at
 * `keys.setLimits` for a key. Each throws a `TypeError` naming the bad value.
 */
import { toPolicy } from "../rate-limit/duration.js";
import { calendarPeriods } from "./calendar-period.js";
import { limitNumberProblem } from "./limit-number.js";
import type {
  CalendarPeriod,
  CreditsConfig,
  KeyLimitOverrides,
  KeyLimits,
  QuotaConfig,
} from "./types.js";

function checkPeriod(period: unknown, what: string): CalendarPeriod {
  if (!calendarPeriods.includes(period as CalendarPeriod)) {
    throw new TypeError(
      `Invalid ${what} period ${JSON.stringify(period)}: expected "day", "week" or "month"`,
    );
  }
  return period as CalendarPeriod;
}

function checkCount(value: unknown, what: string, least: number): number {
  const problem = limitNumberProblem(value, least);
  if (problem !== null) throw new TypeError(`Invalid ${what} ${String(value)}: it ${problem}`);
  return value as number;
}

export function checkQuota(quota: QuotaConfig): QuotaConfig {
  return {
    limit: checkCount(quota?.limit, "quota limit", 1),
    period: checkPeriod(quota?.period, "quota"),
  };
}

export function checkCredits(credits: CreditsConfig): CreditsConfig {
  const remaining = checkCount(credits?.remaining, "credits remaining", 0);
  if (credits.refill === undefined) return { remaining };
  return {
    remaining,
    refill: {
      amount: checkCount(credits.refill?.amount, "credits refill amount", 1),
      period: checkPeriod(credits.refill?.period, "credits refill"),
    },
  };
}

/**
 * The key's limits after `overrides` apply to `current`: checked, copied with only the fields
 * Keyward knows, credits granted at `now`. Null when nothing is left to store.
 */
export function applyOverrides(
  current: KeyLimits | null | undefined,
  overrides: KeyLimitOverrides | null,
  now: number,
): KeyLimits | null {
  if (overrides === null) return null;
  if (typeof overrides !== "object") {
    throw new TypeError("Keyward: limits must be an object, or null to clear them");
  }
  const next: KeyLimits = { ...current };
  const { rateLimit, ownerRateLimit, quota, credits } = overrides;
  if (rateLimit === null) delete next.rateLimit;
  else if (rateLimit !== undefined) {
    toPolicy(rateLimit);
    next.rateLimit = { ...rateLimit };
  }
  if (ownerRateLimit === null) delete next.ownerRateLimit;
  else if (ownerRateLimit !== undefined) {
    if (ownerRateLimit !== false) toPolicy(ownerRateLimit);
    next.ownerRateLimit = ownerRateLimit === false ? false : { ...ownerRateLimit };
  }
  if (quota === null) delete next.quota;
  else if (quota !== undefined) next.quota = quota === false ? false : checkQuota(quota);
  if (credits === null) delete next.credits;
  else if (credits !== undefined) {
    // Strictly later than the grant it replaces: a store tells grants apart by this time alone.
    const grantedAt = Math.max(now, (current?.credits?.grantedAt ?? 0) + 1);
    next.credits = { ...checkCredits(credits), grantedAt };
  }
  return Object.keys(next).length === 0 ? null : next;
}
