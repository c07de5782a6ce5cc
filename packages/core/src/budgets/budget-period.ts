/**
 * A budget's period: a UTC day, a UTC week (Monday 00:00 to Monday 00:00, ISO 8601) or a UTC
 * calendar month, as epoch-ms boundaries. A budget's balance belongs to the period it was spent in:
 * at the first instant of the next one it is the whole limit again.
 */
import { periodEnd, periodStart } from "../limits/calendar-period.js";

export type BudgetPeriod = "day" | "week" | "month";

export const budgetPeriods: readonly BudgetPeriod[] = ["day", "week", "month"];

const dayMs = 86_400_000;

/** The start of the period holding `now`. */
export function budgetPeriodStart(now: number, period: BudgetPeriod): number {
  if (period !== "week") return periodStart(now, period);
  const day = Math.floor(now / dayMs);
  // Day 0 (1970-01-01) was a Thursday: Monday is 3 days before it.
  const sinceMonday = (((day + 3) % 7) + 7) % 7;
  return (day - sinceMonday) * dayMs;
}

/** The start of the next period: when the budget is whole again. */
export function budgetPeriodEnd(now: number, period: BudgetPeriod): number {
  if (period !== "week") return periodEnd(now, period);
  return budgetPeriodStart(now, period) + 7 * dayMs;
}
