/** The order and window `KeyStore.listExpiring` promises, in one place so every store answers alike. */
import { compareCodeUnits } from "./code-unit-order.js";
import type { ExpiringKeysQuery, StoredKey } from "./key-store.js";

/** Soonest expiry first, then `id` ascending in code-unit order. */
export function soonestExpiryFirst(
  a: { expiresAt: number; id: string },
  b: { expiresAt: number; id: string },
): number {
  return a.expiresAt - b.expiresAt || compareCodeUnits(a.id, b.id);
}

/**
 * One page of `listExpiring` from keys in any order: those not revoked in the window, after the
 * cursor, sorted, at most `limit`. For stores that filter in memory; a database does it in its query.
 */
export function pageOfExpiringKeys(
  keys: Iterable<StoredKey>,
  query: ExpiringKeysQuery,
): StoredKey[] {
  const { from, to, after, limit } = query;
  const matching: (StoredKey & { expiresAt: number })[] = [];
  for (const key of keys) {
    const expiresAt = key.expiresAt;
    if (expiresAt === null || key.revokedAt !== null || expiresAt < from || expiresAt >= to)
      continue;
    const positioned = key as StoredKey & { expiresAt: number };
    if (after && soonestExpiryFirst(positioned, after) <= 0) continue;
    matching.push(positioned);
  }
  return matching.sort(soonestExpiryFirst).slice(0, limit);
}
