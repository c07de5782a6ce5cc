/**
 * `verify`'s phase "charge": which limit layers a key's request is charged to. The kernel's own
 * plan comes first (`limits/resolve-layers.ts`: the tier's rate limit per key, the owner's shared
 * allowance and quota, the key's overrides and credits); each listed step is then handed the plan
 * so far and answers it, with layers of its own added or unchanged. The layers are applied in one
 * atomic store step (`limits/layered-limiter.ts`), so a refused request spends from none.
 *
 * A step answers the plan it was given when it adds nothing, and the same plan object for the same
 * key record and plan when it does add: stores cache what they derive from a list of layers by its
 * identity, and a new list on every request would cost each request that work again.
 */
import type { KeyLimitPlan } from "../limits/resolve-layers.js";
import type { StoredKey } from "../storage/key-store.js";
import type { VerifyOptions } from "./principal.js";

export interface ChargeStep {
  /** What it charges, for a reader of the list (a feature's name, say). */
  readonly name: string;
  /** `plan` with this step's layers added, or `plan` itself when it adds none to this request. */
  plan(plan: KeyLimitPlan, request: ChargeRequest): KeyLimitPlan;
}

/** The request a plan is made for. */
export interface ChargeRequest {
  readonly key: StoredKey;
  readonly options: VerifyOptions;
  /** The tier the key runs at (its own, capped at its owner's). */
  readonly tier: string;
  /** The credits the request spends (`options.cost`, 1 by default). */
  readonly cost: number;
}
