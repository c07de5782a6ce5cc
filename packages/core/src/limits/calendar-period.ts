/**
 * UTC calendar periods for quotas and credit refills, as epoch-ms boundaries. Pure arithmetic, so
 * the Redis script can compute the same boundaries (`civilFromDays` is transcribed there).
 */
import type { CalendarPeriod } from "./types.js";

const dayMs = 86_400_000;

/**
 * The start of the period holding `now`.
 *
 * @example
 * periodStart(Date.UTC(2026, 10, 23, 12), "month") === Date.UTC(2026, 10, 1); // true
 */
export function periodStart(now: number, period: CalendarPeriod): number {
  const day = Math.floor(now / dayMs);
  if (period === "day") return day * dayMs;
  const date = new Date(day * dayMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** The start of the next period: when a quota resets and credits refill. */
export function periodEnd(now: number, period: CalendarPeriod): number {
  const day = Math.floor(now / dayMs);
  if (period === "day") return (day + 1) * dayMs;
  const date = new Date(day * dayMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}
