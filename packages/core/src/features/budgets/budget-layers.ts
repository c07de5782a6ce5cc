/**
 * Budgets as limit layers: the charge step `budgets()` adds to `verify`'s phase "charge". A budget
 * is a balance of `limit` per period, spent by each request's `cost`, so it is a credits layer whose
 * balance is whole again at the start of every period. Being a layer of the key's plan, it is
 * decided with the rate limits, quota and credits in the store's one atomic step, all-or-nothing,
 * on every store, with no state of its own:
 *
 * every budget refills (`refill: { amount: limit, period }`) at the start of each UTC day, ISO
 * week (Monday 00:00 UTC) or month, the kernel's calendar periods, so a refusal carries the
 * period's end as its reset and `Retry-After`.
 */
import type { ChargeStep } from "../../auth/charge-steps.js";
import type { KeyLimitPlan } from "../../limits/resolve-layers.js";
import type { LimitLayer } from "../../limits/types.js";
import type { StoredKey } from "../../storage/key-store.js";
import { type Budget, type BudgetSource, budgetOf } from "./budget-config.js";
import { ownBudgetOf } from "./budget-field.js";

export type CreditsLayer = Extract<LimitLayer, { layer: "credits" }>;

/** Bucket names of the budget layers: never a kernel credits bucket (`credits:<key id>`). */
export const keyBudgetBucket = (keyId: string) => `budget:key:${keyId}`;
export const ownerBudgetBucket = (owner: string) => `budget:owner:${owner}`;
/** The key's own budget (its `budget` field): a layer beside the configured one, never it. */
export const ownBudgetBucket = (keyId: string) => `budget:own:${keyId}`;

export function isBudgetBucket(bucket: string): boolean {
  return bucket.startsWith("budget:");
}

export function budgetLayer(bucket: string, budget: Budget, cost: number): CreditsLayer {
  return {
    layer: "credits",
    bucket,
    cost,
    remaining: budget.limit,
    grantedAt: 0,
    refill: { amount: budget.limit, period: budget.period },
  };
}

export interface BudgetSources {
  perKey: BudgetSource;
  perOwner: BudgetSource;
}

/**
 * The charge step. For the default cost of 1 the plan with budgets is kept per plan (a budget's
 * layer is the same in every period: its refill starts each one), so a key that is not spending a
 * `cost` gets the same plan object on every request, as the charge phase asks.
 */
export function budgetChargeStep(sources: BudgetSources): ChargeStep {
  const cached = new WeakMap<KeyLimitPlan, KeyLimitPlan>();
  return {
    name: "budget",
    plan(plan, request) {
      const { key, cost } = request;
      const keyBudget = budgetOf(sources.perKey, key, "budgets({ perKey })");
      const ownerBudget = budgetOf(sources.perOwner, key, "budgets({ perOwner })");
      const ownBudget = ownBudgetOf(key);
      if (!keyBudget && !ownerBudget && !ownBudget) return plan;
      if (cost === 1) {
        const hit = cached.get(plan);
        if (hit) return hit;
      }
      const layers: LimitLayer[] = plan.layers
        ? [...plan.layers]
        : [{ layer: "key", bucket: `key:${key.id}`, policy: plan.policy }];
      if (keyBudget) layers.push(budgetLayer(keyBudgetBucket(key.id), keyBudget, cost));
      if (ownBudget) layers.push(budgetLayer(ownBudgetBucket(key.id), ownBudget, cost));
      if (ownerBudget) {
        layers.push(budgetLayer(ownerBudgetBucket(plan.owner), ownerBudget, cost));
      }
      const next = { ...plan, layers };
      if (cost === 1) cached.set(plan, next);
      return next;
    },
  };
}

/** For a reader of a key's budget: which budget `sources` set for it. */
export function budgetsOf(sources: BudgetSources, key: StoredKey) {
  return {
    key: budgetOf(sources.perKey, key, "budgets({ perKey })"),
    own: ownBudgetOf(key),
    owner: budgetOf(sources.perOwner, key, "budgets({ perOwner })"),
  };
}
