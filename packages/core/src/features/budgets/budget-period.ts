/**
 * A budget's period: a UTC day, an ISO 8601 week (Monday 00:00 UTC to the next Monday) or a UTC
 * calendar month, the kernel's calendar periods (`limits/calendar-period.ts`), as epoch-ms
 * boundaries. A budget's balance belongs to the period it was spent in: at the first instant of the
 * next one it is the whole limit again.
 */
import { calendarPeriods, periodEnd, periodStart } from "../../limits/calendar-period.js";
import type { CalendarPeriod } from "../../limits/types.js";

export type BudgetPeriod = CalendarPeriod;

export const budgetPeriods: readonly BudgetPeriod[] = calendarPeriods;

/** The start of the period holding `now`. */
export function budgetPeriodStart(now: number, period: BudgetPeriod): number {
  return periodStart(now, period);
}

/** The start of the next period: when the budget is whole again. */
export function budgetPeriodEnd(now: number, period: BudgetPeriod): number {
  return periodEnd(now, period);
}
