/**
 * The steps of a hold kept as a layer (`hold-layer.ts`) after its reservation: ending it (its
 * layer taken, the rest given back, in one step), and removing its record once it is of no use,
 * in the background, which the feature's `close` waits for.
 */
import type { LayeredLimiter } from "../../limits/layered-limiter.js";
import { giveBackLayers } from "./give-back.js";
import { heldIncrement, takeHold } from "./hold-layer.js";
import type { HoldStore, StoredHold } from "./hold-store.js";

export type LayerHold = StoredHold & { ownLayer: string };

export function isLayerHold(hold: StoredHold): hold is LayerHold {
  return typeof hold.ownLayer === "string";
}

export interface LayerHoldParts {
  store: HoldStore;
  limiter(): LayeredLimiter;
  report(message: string, cause: unknown): void;
}

export function layerHoldSteps(parts: LayerHoldParts) {
  // What runs after a hold ended, not waited for by its caller.
  const running = new Set<Promise<void>>();
  const background = (work: Promise<void>) => {
    const done: Promise<void> = work.finally(() => running.delete(done));
    running.add(done);
  };

  /** Removes a record once of no use; a failure is only reported (the sweep finds the record). */
  const forgetLater = (hold: StoredHold) => {
    const records = parts.store.layered;
    if (!records) return;
    background(
      records
        .forget(hold)
        .catch((cause) => parts.report("Keyward: an ended hold's record was not removed", cause)),
    );
  };

  return {
    background,
    forgetLater,
    /**
     * Takes the hold's layer and gives `returned` back, in one step; false when the layer was
     * taken already (the hold ended elsewhere). A step the store failed (a timeout, a lost
     * connection) throws, and the record stays: the store undoes a step its caller gave up on, so
     * the hold may be live still, and the sweep ends it at its TTL, once, whichever way it went.
     */
    async take(hold: LayerHold, returned: number, now: number): Promise<boolean> {
      const layers = [takeHold(hold), ...giveBackLayers(hold, returned, now)];
      const increments = [heldIncrement(hold.keyId, -hold.amount)];
      const decision = await parts
        .limiter()
        .consume({ owner: hold.owner, layers, now, increments });
      forgetLater(hold);
      return decision.allowed;
    },
    /** Waits for what runs in the background (records being removed, refused holds ended). */
    async settled(): Promise<void> {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
