import { ownerLabel, ownerOfKey } from "../keys/owner.js";
import type { StoredKey } from "../storage/key-store.js";

/**
 * Whose shared allowance and quota a key's requests count against: `user:<id>` for a user's keys,
 * `organization:<id>` for an organization's (all its keys share one allowance, whichever member
 * made them). The one place that says who owns a key for limits.
 *
 * @example
 * ownerLimitKey(key); // "user:u_123", or "organization:acme"
 */
export function ownerLimitKey(key: Pick<StoredKey, "ownerType" | "ownerId">): string {
  return ownerLabel(ownerOfKey(key));
}
