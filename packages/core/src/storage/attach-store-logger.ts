/**
 * `createKeyward` and `combineStores` hand their failure reporter to every store they are given;
 * a part assembled by hand (`{ keys: cachedKeyStore(...) }`) is reached too, so it need not be
 * wrapped in a store of its own to be heard.
 */
import type {
  ReportsStoreFailures,
  StoreFailureReport,
} from "../logging/store-failure-reporter.js";

/**
 * Attaches `report` to a store and to each of its parts that reports failures on its own (a
 * `cachedKeyStore` assembled by hand), each once.
 */
export function attachStoreLogger(store: object, report: StoreFailureReport): void {
  const record = store as Record<string, unknown>;
  const targets = new Set([store, record.keys, record.usage, record.rateLimits]);
  for (const target of targets) {
    if (target === null || typeof target !== "object") continue;
    const attach = (target as ReportsStoreFailures).attachLogger;
    if (typeof attach === "function") attach.call(target, report);
  }
}
