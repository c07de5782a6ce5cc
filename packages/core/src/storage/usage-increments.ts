/**
 * Merging `UsageIncrement`s before they are written: increments commute (see `UsageStore`), so any
 * that land on the same row (key, method, route, day) can become one, counts summed and the latest
 * use kept, with the latest `useFields`. Stores use it to send one row per target and to hold usage
 * while storage is away.
 */
import type { UsageIncrement } from "./usage-store.js";

// NUL cannot occur in a key id, method, route template or day, so the joined parts never collide.
const separator = "\u0000";

/** The row an increment lands in: key, endpoint and day, as one string for a `Map` key. */
export function usageIncrementRow({ keyId, method, route, day }: UsageIncrement): string {
  return [keyId, method, route, day].join(separator);
}

/**
 * Adds one increment into `into` (row → increment): summed into its row's entry if there is one,
 * otherwise a copy of it becomes the entry, unless `into` already holds `maxRows` rows. Returns
 * whether it was kept. Entries are owned by the map and changed in place; callers' objects never are.
 *
 * @example
 * if (!mergeUsageIncrement(held, increment, 10_000)) dropped += 1;
 */
export function mergeUsageIncrement(
  into: Map<string, UsageIncrement>,
  increment: UsageIncrement,
  maxRows = Number.POSITIVE_INFINITY,
): boolean {
  const row = usageIncrementRow(increment);
  const existing = into.get(row);
  if (existing) {
    existing.count += increment.count;
    // The entry's use fields keep their own time once its `lastUsedAt` may move past it.
    if (existing.useFields !== undefined) existing.useFieldsAt = useFieldsTimeOf(existing);
    existing.lastUsedAt = Math.max(existing.lastUsedAt, increment.lastUsedAt);
    const fields = increment.useFields;
    if (fields !== undefined) {
      const at = useFieldsTimeOf(increment);
      if (isLaterUse(at, fields, existing.useFieldsAt, existing.useFields)) {
        existing.useFields = fields;
        existing.useFieldsAt = at;
      }
    }
    return true;
  }
  if (into.size >= maxRows) return false;
  into.set(row, { ...increment });
  return true;
}

/**
 * Adds every increment into `into` (see `mergeUsageIncrement`, without a bound) and returns it.
 *
 * @example
 * const rows = [...mergeUsageIncrements(new Map(), increments).values()];
 */
export function mergeUsageIncrements(
  into: Map<string, UsageIncrement>,
  increments: Iterable<UsageIncrement>,
): Map<string, UsageIncrement> {
  for (const increment of increments) mergeUsageIncrement(into, increment);
  return into;
}

/** When an increment's `useFields` were written: `useFieldsAt`, else `lastUsedAt`. */
export function useFieldsTimeOf(increment: UsageIncrement): number {
  return increment.useFieldsAt ?? increment.lastUsedAt;
}

/**
 * Whether `fields` (a `useFields` text), written at `at`, replaces the text kept (`kept`, written
 * at `keptAt`; undefined: none): a later use wins, and of two at the same millisecond the greater
 * text in code-unit order, so every store keeps the same one whatever order the writes come in.
 *
 * @example
 * isLaterUse(2_000, '{"a":"192.0.2.1"}', 1_000, '{"a":"2001:db8::1"}'); // true
 * isLaterUse(1_000, '{"a":"192.0.2.1"}', 1_000, '{"a":"2001:db8::1"}'); // false: "1" < "2"
 */
export function isLaterUse(
  at: number,
  fields: string,
  keptAt: number | undefined,
  kept: string | undefined,
): boolean {
  if (kept === undefined || keptAt === undefined) return true;
  return at > keptAt || (at === keptAt && fields > kept);
}
