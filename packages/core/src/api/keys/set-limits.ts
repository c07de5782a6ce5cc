/**
 * An operator's per-key limits, by key id alone (what a billing system holds), on revoked keys
 * too: never reachable through the HTTP API.
 */
import { isKeyId } from "../../keys/key-id.js";
import { applyOverrides } from "../../limits/check-limits.js";
import type { KeyLimitOverrides, KeyLimits } from "../../limits/types.js";
import { keyNotFoundError, MisuseError } from "./key-errors.js";
import type { KeyOperations } from "./key-operations.js";
import { requireLimitsSupport } from "./limits-support.js";

export type SetLimits = (
  keyId: string,
  overrides: KeyLimitOverrides | null,
) => Promise<KeyLimits | null>;

export function setLimitsOperation(ops: KeyOperations): SetLimits {
  const { ctx } = ops;
  return async (keyId, overrides) => {
    requireLimitsSupport(ctx, null); // the store can keep limits at all: checked before any lookup
    const key = isKeyId(keyId) ? await ops.guarded(() => ctx.keys.findById(keyId)) : null;
    if (!key) throw keyNotFoundError();
    let limits: KeyLimits | null;
    try {
      limits = applyOverrides(key.limits, overrides, ctx.clock.now());
    } catch (error) {
      throw new MisuseError(`Keyward: setLimits: ${(error as Error).message}`);
    }
    requireLimitsSupport(ctx, limits);
    const updated = await ops.guarded(() => ctx.keys.setLimits!(key.id, limits));
    if (!updated) throw keyNotFoundError();
    return updated.limits ?? null;
  };
}
