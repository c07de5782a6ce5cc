/**
 * Credits that start from nothing: a grant of 0 made at time 0, with no refill. A lost state of
 * such a layer is exactly its start, so it needs no durable balance: with credits kept durably
 * (`durable-credits.ts`) it is neither seeded from the durable balance nor written back to it, and a
 * store may drop its state whenever it is back to nothing. A budgets hold's own layer is one
 * (`features/budgets/hold-layer.ts`): a balance per hold, filled by its reservation and emptied by
 * its end, that a durable copy would only pile up.
 */
import type { LimitLayer } from "./types.js";

export function startsFromNothing(layer: LimitLayer): boolean {
  return (
    layer.layer === "credits" &&
    layer.remaining === 0 &&
    layer.grantedAt === 0 &&
    layer.refill === undefined
  );
}
