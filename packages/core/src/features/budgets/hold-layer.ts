/**
 * A hold kept as a layer (with a store that offers it, `HoldStore.layered`): its own credits layer,
 * `hold:<id>`, in its owner's limit state beside the budgets and credits it took from.
 *
 * - The reservation's step charges those layers the hold's amount and puts the same amount into
 *   the hold's layer (a negative cost): the limits' one script, no call of the hold's own.
 * - The settle's step takes the amount out of the hold's layer and gives the rest back to those
 *   layers. Being one step, all-or-nothing, a hold whose layer was taken already (settled on
 *   another instance, released, swept) refuses the step: the give-back happens at most once, and
 *   the guard is the layer's own balance, not a record taken first.
 * - The layer starts from nothing (a grant of 0 at 0, no refill: `limits/transient-credits.ts`), so
 *   a record whose reservation never ran (refused, or given up and undone) has nothing to take, and
 *   with credits kept durably (PostgreSQL beside Redis) the layer is neither seeded nor saved.
 * - What a key's holds hold is a counter of its owner's (`holds`, a field per key) that the same two
 *   steps add to and take from (the kernel's counter increments), so it is exact whatever became of
 *   the records: a usage report reads it.
 */
import type { CounterIncrement } from "../../limits/counter-increments.js";
import type { CreditsLayer } from "./budget-layers.js";
import type { StoredHold } from "./hold-store.js";

export const holdLayerBucket = (holdId: string) => `hold:${holdId}`;

/** The owner's counter of what each key's holds hold. */
export const heldCounter = "holds";

/** What a key's holds hold, changed by `by`: rides the step that puts in or takes out. */
export function heldIncrement(keyId: string, by: number): CounterIncrement {
  return { counter: heldCounter, field: keyId, by };
}

function holdLayer(bucket: string, cost: number): CreditsLayer {
  return { layer: "credits", bucket, cost, remaining: 0, grantedAt: 0 };
}

/** The hold's layer as its reservation charges it: `amount` put in. */
export function fillHold(bucket: string, amount: number): CreditsLayer {
  return holdLayer(bucket, -amount);
}

/** The hold's layer as its end charges it: all of it taken out, or the step refused. */
export function takeHold(hold: StoredHold & { ownLayer: string }): CreditsLayer {
  return holdLayer(hold.ownLayer, hold.amount);
}
