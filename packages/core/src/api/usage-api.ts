import { internalError } from "../errors/keyward-error.js";
import type { UsageRetention } from "../usage/usage-retention.js";

/** `keyward.usage`: usage history maintenance. */
export interface UsageApi {
  /**
   * Prunes daily usage older than `usage.retainDays` now, folding it into the keys' totals, and
   * resolves with how many key-days were removed. For cron jobs and scheduled Workers (with
   * `usage.pruneIntervalMs: false`); safe while other instances prune too. Throws a `TypeError`
   * without `usage.retainDays`.
   */
  prune(): Promise<{ pruned: number }>;
}

export function createUsageApi(retention: UsageRetention | undefined): UsageApi {
  return {
    async prune() {
      if (!retention) {
        throw new TypeError(
          "Keyward: usage retention is not configured; add `usage: { retainDays }` to createKeyward's configuration",
        );
      }
      try {
        return { pruned: await retention.prune() };
      } catch (error) {
        throw internalError(error);
      }
    },
  };
}
