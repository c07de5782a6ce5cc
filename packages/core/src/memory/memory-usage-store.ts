import { sortKeyUsage } from "../storage/usage-order.js";
import type { KeyUsage, UsageIncrement, UsageStore } from "../storage/usage-store.js";

interface KeyCounters {
  total: number;
  lastUsedAt: number;
  /** `${method} ${route}` → count */
  endpoints: Map<string, { method: string; route: string; count: number }>;
  /** `YYYY-MM-DD` → count */
  daily: Map<string, number>;
}

/**
 * `UsageStore` in process memory. Memory grows with keys × routes × days used; a long-running
 * process with many keys should use a persistent store (Postgres, Redis) instead.
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
      endpoints: [...entry.endpoints.values()].map((e) => ({ ...e })),
      daily: [...entry.daily].map(([date, count]) => ({ date, count })),
    });
  };

  return {
    async record(increments: readonly UsageIncrement[]) {
      for (const { keyId, method, route, day, count, lastUsedAt } of increments) {
        let entry = counters.get(keyId);
        if (!entry) {
          entry = { total: 0, lastUsedAt, endpoints: new Map(), daily: new Map() };
          counters.set(keyId, entry);
        }
        entry.total += count;
        entry.lastUsedAt = Math.max(entry.lastUsedAt, lastUsedAt);
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
      const result = new Map<string, number>();
      for (const id of keyIds) {
        const entry = counters.get(id);
        if (entry) result.set(id, entry.lastUsedAt);
      }
      return result;
    },

    /** Every key's usage, for tests and debugging. */
    snapshot: () => Object.fromEntries([...counters.keys()].map((id) => [id, read(id)])),
  };
}
