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
  return monthOf(day).start;
}

/** The start of the next period: when a quota resets and credits refill. */
export function periodEnd(now: number, period: CalendarPeriod): number {
  const day = Math.floor(now / dayMs);
  if (period === "day") return (day + 1) * dayMs;
  return monthOf(day).end;
}

// The month of the last day asked about: on the hot path every request falls in the same one.
let lastDay = Number.NaN;
let lastMonth = { start: 0, end: 0 };

function monthOf(day: number): { start: number; end: number } {
  if (day !== lastDay) {
    const date = new Date(day * dayMs);
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth();
    lastMonth = { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
    lastDay = day;
  }
  return lastMonth;
}
