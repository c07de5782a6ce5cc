/**
 * A member's role may cap the scopes it grants (`organizations({ roles: { member: { grants } } })`):
 * a key that member creates, changes or rotates may hold no scope outside them. Checked from the
 * scopes alone, after the membership was read (no other store call).
 */
import { KeywardError } from "../../errors/keyward-error.js";

/** Throws 403 `scope_not_grantable` naming the scopes outside `grants`; no cap (undefined): none. */
export function refuseUngrantableScopes(
  grants: readonly string[] | undefined,
  scopes: readonly string[],
): void {
  if (grants === undefined) return;
  const outside = scopes.filter((scope) => !grants.includes(scope));
  if (outside.length === 0) return;
  throw new KeywardError(
    "scope_not_grantable",
    `Your role in the organization may not grant ${outside.join(", ")}; it may grant ${grants.join(", ")}`,
  );
}

/**
 * The scopes a key would hold after an update body: its `scopes` when that is a list of strings
 * (the update validates it further), else the key's own.
 */
export function scopesAfterUpdate(current: readonly string[], body: unknown): readonly string[] {
  const requested = (body as { scopes?: unknown } | null)?.scopes;
  if (Array.isArray(requested) && requested.every((scope) => typeof scope === "string")) {
    return requested as string[];
  }
  return current;
}
