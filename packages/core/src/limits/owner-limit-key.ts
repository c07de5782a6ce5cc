import type { StoredKey } from "../storage/key-store.js";

/**
 * Whose shared allowance and quota a key's requests count against: `user:<ownerId>`. The one place
 * that says who owns a key for limits, so organization-owned keys only change this function.
 *
 * @example
 * ownerLimitKey(key); // "user:u_123"
 */
export function ownerLimitKey(key: StoredKey): string {
  return `user:${key.ownerId}`;
}
