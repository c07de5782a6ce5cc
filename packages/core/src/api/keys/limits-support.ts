import type { KeywardContext } from "../../keyward/context.js";
import type { KeyLimits } from "../../limits/types.js";
import { MisuseError } from "./key-errors.js";

/**
 * Limits can be stored and applied here: else a host's misconfiguration, thrown as a `TypeError`.
 * `null`: only whether the key store can keep per-key limits at all.
 */
export function requireLimitsSupport(ctx: KeywardContext, limits: KeyLimits | null): void {
  if (!ctx.keys.setLimits) {
    throw new MisuseError("Keyward: this key store cannot store per-key limits (`setLimits`)");
  }
  if (limits !== null && !ctx.layeredLimits) {
    throw new MisuseError(
      "Keyward: the store's rate limits cannot apply layered limits (`consumeLayers`)",
    );
  }
}
