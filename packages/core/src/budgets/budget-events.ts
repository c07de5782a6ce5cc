/**
 * Budget events, read off the decision `verify` already has (its phase "spent"): no store call.
 * A budget `crossed` a threshold when the request that spent past it is admitted (each admitted
 * request's decision comes from the store's one atomic step, so exactly one request crosses each
 * mark, on any number of instances); it is `exhausted` when nothing is left. Money given back by a
 * settle lifts the balance above a mark again, and a later spend crosses it again.
 */
import type { SpendStep } from "../auth/spend-steps.js";
import { isBudgetBucket } from "./budget-layers.js";

export interface BudgetEvent {
  type: "budget.threshold" | "budget.exhausted";
  /** Whose budget: the key's (configured, or its own `budget` field), or its owner's shared one. */
  scope: "key" | "owner";
  keyId: string;
  owner: string;
  /** The mark crossed, in percent of the limit spent (100 for `budget.exhausted`). */
  percent: number;
  limit: number;
  remaining: number;
  /** When the budget is whole again (epoch ms); 0 if never by itself. */
  resetsAt: number;
  at: number;
}

export function budgetEventsStep(
  thresholds: readonly number[],
  onEvent: (event: BudgetEvent) => void,
  report: (message: string, cause: unknown) => void,
): SpendStep {
  return {
    name: "budget-events",
    spent({ key, owner, layers, decisions, now }) {
      for (let index = 0; index < layers.length; index++) {
        const layer = layers[index]!;
        if (layer.layer !== "credits" || !isBudgetBucket(layer.bucket) || layer.cost <= 0) continue;
        const decision = decisions[index]!;
        const limit = decision.limit;
        const after = decision.remaining;
        const before = after + layer.cost;
        const scope = layer.bucket.startsWith("budget:owner:") ? "owner" : "key";
        const tell = (type: BudgetEvent["type"], percent: number) => {
          try {
            onEvent({
              type,
              scope,
              keyId: key.id,
              owner,
              percent,
              limit,
              remaining: after,
              resetsAt: decision.reset,
              at: now,
            });
          } catch (error) {
            report("Keyward: a budget event listener threw", error);
          }
        };
        for (const percent of thresholds) {
          const mark = limit - (limit * percent) / 100;
          if (before > mark && after <= mark && percent < 100) tell("budget.threshold", percent);
        }
        if (before > 0 && after === 0) tell("budget.exhausted", 100);
      }
    },
  };
}
