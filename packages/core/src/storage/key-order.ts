/** The order `KeyStore.listByOwner` promises, kept in one place so every store lists alike. */
import { compareCodeUnits } from "./code-unit-order.js";
import type { StoredKey } from "./key-store.js";

/**
 * Newest first: `createdAt` descending, then `id` descending in code-unit order, so that keys
 * created in the same millisecond still list in one stable order on every store.
 *
 * @example
 * return keys.sort(newestKeyFirst);
 */
export function newestKeyFirst(
  a: Pick<StoredKey, "createdAt" | "id">,
  b: Pick<StoredKey, "createdAt" | "id">,
): number {
  return b.createdAt - a.createdAt || compareCodeUnits(b.id, a.id);
}
