/**
 * What a give-back steps: the layers a hold took from that are still in the period and grant it
 * was taken in. A budget of a past period is whole again: giving into it would grant what was
 * never spent.
 */
import { periodStart } from "../../limits/calendar-period.js";
import type { CreditsLayer } from "./budget-layers.js";
import type { StoredHold } from "./hold-store.js";

/**
 * The layers a give-back of `amount` from `hold` steps, each with cost `-amount`: those still in
 * the period and grant the hold was taken in. For a store that gives holds back itself (a Durable
 * Object's alarm at the hold's TTL), the same rule as `settle` and `release`.
 */
export function giveBackLayers(hold: StoredHold, amount: number, now: number): CreditsLayer[] {
  if (amount <= 0) return [];
  return hold.layers
    .filter((layer) => samePeriod(layer, hold.heldAt, now))
    .map((layer) => ({ ...layer, cost: -amount }));
}

/** Whether a layer is still in the period (and grant) a hold taken at `heldAt` was taken from. */
function samePeriod(layer: CreditsLayer, heldAt: number, now: number): boolean {
  if (!layer.refill) return true;
  return periodStart(heldAt, layer.refill.period) === periodStart(now, layer.refill.period);
}
