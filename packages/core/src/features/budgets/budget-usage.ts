/**
 * Where a key's budgets stand in the current period: what its holds still hold, what was spent
 * for good and what is left. Holds are taken from the balance up front, so
 * `left = limit − spent − held`, and `spent` is read as `limit − left − held`. Read from the store
 * without changing anything (one layered read and one hold sum).
 */
import type { FeatureKernel } from "../../feature-interface/feature-kernel.js";
import { ownerLimitKey } from "../../limits/owner-limit-key.js";
import type { LimitLayer } from "../../limits/types.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { Budget } from "./budget-config.js";
import {
  type BudgetSources,
  budgetLayer,
  budgetsOf,
  keyBudgetBucket,
  ownBudgetBucket,
  ownerBudgetBucket,
} from "./budget-layers.js";
import { budgetPeriodEnd } from "./budget-period.js";
import { heldCounter } from "./hold-layer.js";
import type { HoldStore } from "./hold-store.js";

export interface BudgetStanding extends Budget {
  held: number;
  spent: number;
  left: number;
  /** When the budget is whole again (epoch ms). */
  resetsAt: number;
}

export interface BudgetUsage {
  keyId: string;
  /** What the key's holds hold now (from its credits and budgets alike). */
  held: number;
  /** The key's budget as configured (`perKey`); null without one. */
  key: BudgetStanding | null;
  /** The key's own budget, its `budget` field; null without one. */
  own: BudgetStanding | null;
  /**
   * Its owner's shared budget; null without one. `held` counts every key's holds of the owner
   * with holds kept as layers (Redis), and this key's only elsewhere.
   */
  owner: BudgetStanding | null;
}

export interface BudgetUsageRequest {
  kernel: FeatureKernel;
  sources: BudgetSources;
  store: HoldStore;
  key: StoredKey;
  /** The time to read at (epoch ms). */
  now: number;
}

/**
 * What the key's holds hold, and its owner's keys' together: the records' sum, and with holds kept
 * as layers the owner's counter their steps keep (`hold-layer.ts`; those records are not summed),
 * a field per key. Records are summed per key only, so without layers `owner` is the key's.
 */
async function heldBy(kernel: FeatureKernel, store: HoldStore, key: StoredKey, now: number) {
  const limiter = kernel.limits.layered;
  const counted =
    store.layered && limiter?.appliesIncrements && limiter.readCounter
      ? limiter.readCounter(ownerLimitKey(key), heldCounter, now)
      : undefined;
  const [recorded, counter = {}] = await Promise.all([store.heldBy(key.id), counted]);
  let owner = recorded;
  for (const held of Object.values(counter)) owner += Math.max(0, held);
  return { key: recorded + Math.max(0, counter[key.id] ?? 0), owner };
}

export async function budgetUsage({
  kernel,
  sources,
  store,
  key,
  now,
}: BudgetUsageRequest): Promise<BudgetUsage> {
  const budgets = budgetsOf(sources, key);
  const owner = ownerLimitKey(key);
  const layers: LimitLayer[] = [];
  const indexOf: Partial<Record<"key" | "own" | "owner", number>> = {};
  const add = (which: "key" | "own" | "owner", layer: LimitLayer) => {
    indexOf[which] = layers.push(layer) - 1;
  };
  if (budgets.key) add("key", budgetLayer(keyBudgetBucket(key.id), budgets.key, 0));
  if (budgets.own) add("own", budgetLayer(ownBudgetBucket(key.id), budgets.own, 0));
  if (budgets.owner) add("owner", budgetLayer(ownerBudgetBucket(owner), budgets.owner, 0));
  const [holds, decisions] = await Promise.all([
    heldBy(kernel, store, key, now),
    layers.length > 0 && kernel.limits.layered
      ? kernel.limits.layered.read({ owner, layers, now })
      : Promise.resolve([]),
  ]);
  const standing = (
    budget: Budget | undefined,
    index = -1,
    held = holds.key,
  ): BudgetStanding | null => {
    if (!budget) return null;
    const left = decisions[index]?.remaining ?? budget.limit;
    return {
      ...budget,
      held,
      left,
      spent: Math.max(0, budget.limit - left - held),
      resetsAt: budgetPeriodEnd(now, budget.period),
    };
  };
  return {
    keyId: key.id,
    held: holds.key,
    key: standing(budgets.key, indexOf.key),
    own: standing(budgets.own, indexOf.own),
    owner: standing(budgets.owner, indexOf.owner, holds.owner),
  };
}
