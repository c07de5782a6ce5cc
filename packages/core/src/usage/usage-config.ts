import type { UsageStore } from "../storage/usage-store.js";

/** `usage` in `createKeyward`'s configuration: how counts are buffered, and how long days are kept. */
export interface UsageConfig {
  /** How often buffered counts are written, in ms; default 1000. */
  flushIntervalMs?: number;
  /** Distinct (key, route, day) entries that force a write; default 10 000. */
  maxBuffered?: number;
  /**
   * How many UTC days of daily usage are kept besides today (opt-in; default: kept for good).
   * Older days are folded into each key's totals and removed in the background: `totalRequests`
   * and the per-endpoint counts keep counting every request, `daily` covers the kept days only.
   */
  retainDays?: number;
  /**
   * How often this instance prunes, in ms, with `retainDays`; default one hour. The first run is
   * an interval after the instance first verifies a key or reads usage. `false`: never on a
   * timer; call `keyward.usage.prune()` yourself (a cron job, a scheduled Worker).
   */
  pruneIntervalMs?: number | false;
}

export const defaultUsagePruneIntervalMs = 60 * 60 * 1000;
/** The most days `retainDays` takes: about 100 years, far inside what a Date holds. */
const maxRetainDays = 36_500;

/** Throws a `TypeError` naming the option for anything `usage` should not be. */
export function checkUsageConfig(usage: unknown, store: UsageStore): void {
  if (usage === undefined) return;
  if (typeof usage !== "object" || usage === null || Array.isArray(usage)) {
    throw new TypeError(
      "Keyward: `usage` must be an object like { flushIntervalMs: 1000, retainDays: 90 }",
    );
  }
  const options = usage as UsageConfig;
  for (const name of ["flushIntervalMs", "maxBuffered"] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new TypeError(`Keyward: \`usage.${name}\` must be a positive number, got ${value}`);
    }
  }
  const { retainDays, pruneIntervalMs } = options;
  if (
    retainDays !== undefined &&
    !(Number.isInteger(retainDays) && retainDays >= 1 && retainDays <= maxRetainDays)
  ) {
    throw new TypeError(
      `Keyward: \`usage.retainDays\` must be a whole number of days from 1 to ${maxRetainDays}, got ${JSON.stringify(retainDays)}`,
    );
  }
  if (
    pruneIntervalMs !== undefined &&
    pruneIntervalMs !== false &&
    !(Number.isFinite(pruneIntervalMs) && pruneIntervalMs > 0)
  ) {
    throw new TypeError(
      `Keyward: \`usage.pruneIntervalMs\` must be a positive number of ms or false, got ${JSON.stringify(pruneIntervalMs)}`,
    );
  }
  if (pruneIntervalMs !== undefined && retainDays === undefined) {
    throw new TypeError(
      "Keyward: `usage.pruneIntervalMs` is set without `usage.retainDays`; set how many days to keep",
    );
  }
  if (retainDays !== undefined && typeof store.prune !== "function") {
    throw new TypeError(
      "Keyward: `usage.retainDays` is set, but the usage store cannot prune (its `usage` has no `prune`). Use memoryStore(), postgresStore() or redisStore(), or remove `usage.retainDays`.",
    );
  }
}
