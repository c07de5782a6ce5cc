/** The order `KeyStore.listByOwner` promises, kept in one place so every store lists alike. */
import { compareCodeUnits } from "./code-unit-order.js";
import type { ListByOwnerOptions, StoredKey } from "./key-store.js";

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

/**
 * One page of keys already sorted by `newestKeyFirst`: those after `options.after`, at most
 * `options.limit`. For stores that sort in memory; a database pages in its query instead.
 */
export function pageOfKeys<T extends Pick<StoredKey, "createdAt" | "id">>(
  sorted: T[],
  options: ListByOwnerOptions = {},
): T[] {
  const { after, limit } = options;
  const start = after ? sorted.findIndex((key) => newestKeyFirst(key, after) > 0) : 0;
  const from = start === -1 ? sorted.length : start;
  return limit === undefined ? sorted.slice(from) : sorted.slice(from, from + limit);
}
