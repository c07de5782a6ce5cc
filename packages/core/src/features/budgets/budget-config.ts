/**
 * What a host configures: a budget (`{ limit, period }`) per key and per owner, each either one
 * budget for all or a function of the key, and how long a hold lives. Checked once, at start: a
 * malformed budget is a `TypeError` naming the field; a function's answer is checked when it is
 * used, and a malformed one refuses that request with a clear error instead of spending anything.
 */
import type { StoredKey } from "../../storage/key-store.js";
import { type BudgetPeriod, budgetPeriods } from "./budget-period.js";

/** At most `limit` (credits, tokens: the unit `cost` is in) spent per UTC `period`. */
export interface Budget {
  limit: number;
  period: BudgetPeriod;
}

/** One budget for every key (or owner), a function of the key, or none. */
export type BudgetSource = Budget | ((key: StoredKey) => Budget | undefined) | undefined;

export function checkBudget(budget: unknown, where: string): Budget {
  if (typeof budget !== "object" || budget === null) {
    throw new TypeError(`${where}: a budget is { limit, period }, got ${String(budget)}`);
  }
  const { limit, period } = budget as Partial<Budget>;
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 0) {
    throw new TypeError(`${where}.limit must be a whole number ≥ 0, got ${String(limit)}`);
  }
  if (!budgetPeriods.includes(period as BudgetPeriod)) {
    throw new TypeError(
      `${where}.period must be one of ${budgetPeriods.join(", ")}, got ${JSON.stringify(period)}`,
    );
  }
  return { limit, period: period as BudgetPeriod };
}

/** The budget `source` sets for `key`, checked. */
export function budgetOf(source: BudgetSource, key: StoredKey, where: string): Budget | undefined {
  if (source === undefined) return undefined;
  if (typeof source !== "function") return source;
  const budget = source(key);
  return budget === undefined ? undefined : checkBudget(budget, where);
}

/** Checks a source at start: a budget is checked now, a function when it answers. */
export function checkBudgetSource(source: unknown, where: string): BudgetSource {
  if (source === undefined || typeof source === "function") return source as BudgetSource;
  return checkBudget(source, where);
}
