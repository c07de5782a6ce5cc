import type { UsageIncrement } from "@keyward/core";

const separator = "\u0000";

/** The row an increment lands in: key, endpoint and day. */
export function usageRowKey({ keyId, method, route, day }: UsageIncrement): string {
  return [keyId, method, route, day].join(separator);
}

/**
 * Adds `increments` into `into`, one entry per row: counts summed, the latest use kept. Used to
 * send one row per target (an upsert may not touch a row twice in one statement) and to buffer.
 */
export function mergeIncrements(
  into: Map<string, UsageIncrement>,
  increments: Iterable<UsageIncrement>,
): Map<string, UsageIncrement> {
  for (const increment of increments) {
    const rowKey = usageRowKey(increment);
    const existing = into.get(rowKey);
    if (existing) {
      existing.count += increment.count;
      existing.lastUsedAt = Math.max(existing.lastUsedAt, increment.lastUsedAt);
    } else {
      into.set(rowKey, { ...increment });
    }
  }
  return into;
}
