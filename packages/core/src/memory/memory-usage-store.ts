import { isLaterUse, useFieldsTimeOf } from "../storage/usage-increments.js";
import { sortKeyUsage } from "../storage/usage-order.js";
import type { KeyUsage, LastUse, UsageIncrement, UsageStore } from "../storage/usage-store.js";

interface KeyCounters {
  total: number;
  lastUsedAt: number;
  /** The use fields of the latest use that had some, and when it was made (`isLaterUse`). */
  useFields?: string;
  useFieldsAt?: number;
  /** `${method} ${route}` → count */
  endpoints: Map<string, { method: string; route: string; count: number }>;
  /** `YYYY-MM-DD` → count */
  daily: Map<string, number>;
}

/** Keys visited between two yields to the event loop while pruning: no long synchronous run. */
const pruneBatch = 10_000;

/**
 * `UsageStore` in process memory. Memory grows with keys × routes × days used (bounded by days with
 * `usage.retainDays`); a long-running process with many keys should use a persistent store
 * (Postgres, Redis) instead.
 *
 * Totals and endpoint counts are kept per key apart from the daily series, so pruning a day only
 * deletes its entry: nothing else changes.
 */
export function memoryUsageStore(): UsageStore & { snapshot(): Record<string, KeyUsage> } {
  const counters = new Map<string, KeyCounters>();

  const read = (keyId: string): KeyUsage => {
    const entry = counters.get(keyId);
    if (!entry) return { keyId, totalRequests: 0, lastUsedAt: null, endpoints: [], daily: [] };
    return sortKeyUsage({
      keyId,
      totalRequests: entry.total,
      lastUsedAt: entry.lastUsedAt,
      ...(entry.useFields === undefined ? {} : { useFields: entry.useFields }),
      endpoints: [...entry.endpoints.values()].map((e) => ({ ...e })),
      daily: [...entry.daily].map(([date, count]) => ({ date, count })),
    });
  };

  return {
    async record(increments: readonly UsageIncrement[]) {
      for (const increment of increments) {
        const { keyId, method, route, day, count, lastUsedAt, useFields } = increment;
        let entry = counters.get(keyId);
        if (!entry) {
          entry = { total: 0, lastUsedAt, endpoints: new Map(), daily: new Map() };
          counters.set(keyId, entry);
        }
        entry.total += count;
        entry.lastUsedAt = Math.max(entry.lastUsedAt, lastUsedAt);
        if (useFields !== undefined) {
          const at = useFieldsTimeOf(increment);
          if (isLaterUse(at, useFields, entry.useFieldsAt, entry.useFields)) {
            entry.useFields = useFields;
            entry.useFieldsAt = at;
          }
        }
        const endpointKey = `${method} ${route}`;
        const endpoint = entry.endpoints.get(endpointKey);
        if (endpoint) endpoint.count += count;
        else entry.endpoints.set(endpointKey, { method, route, count });
        entry.daily.set(day, (entry.daily.get(day) ?? 0) + count);
      }
    },

    async read(keyId) {
      return read(keyId);
    },

    async lastUsed(keyIds) {
      const result = new Map<string, LastUse>();
      for (const id of keyIds) {
        const entry = counters.get(id);
        if (!entry) continue;
        const { lastUsedAt: at, useFields } = entry;
        result.set(id, useFields === undefined ? { at } : { at, useFields });
      }
      return result;
    },

    async prune(beforeDay) {
      let pruned = 0;
      let visited = 0;
      // A snapshot of the ids: keys recorded while this yields are young and need no pruning.
      for (const id of [...counters.keys()]) {
        const daily = counters.get(id)?.daily;
        if (daily) {
          for (const day of daily.keys()) {
            if (day < beforeDay) {
              daily.delete(day);
              pruned += 1;
            }
          }
        }
        if (++visited % pruneBatch === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      }
      return pruned;
    },

    /** Every key's usage, for tests and debugging. */
    snapshot: () => Object.fromEntries([...counters.keys()].map((id) => [id, read(id)])),
  };
}
