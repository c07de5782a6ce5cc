/**
 * UTC calendar periods for quotas and credit refills, as epoch-ms boundaries: a day from 00:00
 * UTC, an ISO 8601 week from Monday 00:00 UTC, a month from its 1st. Pure arithmetic, so the Redis
 * script can compute the same boundaries (`civilFromDays` and the week's Monday are transcribed
 * there).
 */
import type { CalendarPeriod } from "./types.js";

const dayMs = 86_400_000;
const weekMs = 7 * dayMs;

/** The periods there are, in order of length. */
export const calendarPeriods: readonly CalendarPeriod[] = ["day", "week", "month"];

/**
 * The start of the period holding `now`.
 *
 * @example
 * periodStart(Date.UTC(2026, 10, 23, 12), "month") === Date.UTC(2026, 10, 1); // true
 * periodStart(Date.UTC(2026, 11, 10, 12), "week") === Date.UTC(2026, 11, 7); // a Monday
 */
export function periodStart(now: number, period: CalendarPeriod): number {
  const day = Math.floor(now / dayMs);
  if (period === "day") return day * dayMs;
  if (period === "week") return mondayOf(day) * dayMs;
  return monthOf(day).start;
}

/** The start of the next period: when a quota resets and credits refill. */
export function periodEnd(now: number, period: CalendarPeriod): number {
  const day = Math.floor(now / dayMs);
  if (period === "day") return (day + 1) * dayMs;
  if (period === "week") return mondayOf(day) * dayMs + weekMs;
  return monthOf(day).end;
}

/** The Monday of the ISO week holding `day` (days since 1970-01-01, a Thursday). */
function mondayOf(day: number): number {
  // Day 0 was a Thursday: three days after a Monday.
  return day - ((((day + 3) % 7) + 7) % 7);
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
