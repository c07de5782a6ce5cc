import { attachStoreObserver, type StoreObserver } from "../observation/store-observer.js";
import { attachStoreLogger } from "./attach-store-logger.js";
import type { KeywardStore, StoreFailureReport, StoreParts } from "./index.js";

type PartName = "keys" | "usage" | "rateLimits";
const partNames: readonly PartName[] = ["keys", "usage", "rateLimits"];

/** A store, or some of its parts picked by hand (`{ keys: pg.keys }`); `close` is optional there. */
export type StorePart = Partial<StoreParts>;

/**
 * One store from several: each part (`keys`, `usage`, `rateLimits`) comes from the first argument
 * that has it, so order says which store wins, and `close` closes every argument. Throws a
 * `TypeError` when a part is missing, or when parts do not fit together: a rate-limit store that
 * counts usage inside its own call (`redisStore`'s) must come with the usage store that reads it
 * back, or usage would be counted where nobody reads it.
 *
 * @example
 * // Keys on PostgreSQL; rate limits and usage on Redis (one round trip per request).
 * const store = combineStores(redisStore({ client: redis }), postgresStore({ client: pool }));
 * const keyward = createKeyward({ store, scopes, tiers });
 *
 * @example
 * // Keys and usage on PostgreSQL, rate limits per instance in memory.
 * const store = combineStores(postgresStore({ client: pool }), memoryStore());
 */
export function combineStores(...stores: StorePart[]): KeywardStore & {
  close(): Promise<void>;
  attachLogger(report: StoreFailureReport): void;
  attachObserver(observer: StoreObserver): void;
} {
  const from = new Map<PartName, number>();
  stores.forEach((store, index) => {
    if (store === null || typeof store !== "object") {
      throw new TypeError(`combineStores: argument ${index + 1} is not a store`);
    }
    for (const part of partNames) {
      if (store[part] !== undefined && !from.has(part)) from.set(part, index);
    }
  });
  const missing = partNames.filter((part) => !from.has(part));
  if (missing.length > 0) {
    throw new TypeError(
      `combineStores: no store provides ${missing.join(", ")}; add one that does ` +
        "(memoryStore() provides all three, postgresStore() keys and usage, redisStore() usage and rate limits)",
    );
  }
  const pick = <P extends PartName>(part: P) =>
    stores[from.get(part)!]![part] as NonNullable<StoreParts[P]>;
  const keys = pick("keys");
  const usage = pick("usage");
  const rateLimits = pick("rateLimits");
  checkUsagePairing(rateLimits, usage, from.get("rateLimits")!, from.get("usage")!);
  // Optional: the first store that keeps quotas and credits apart from its rate limits.
  const allowances = stores.find((store) => store.allowances !== undefined)?.allowances;
  // The events the key store writes, and their outbox, are that store's: never another's, which
  // would read a log nobody writes.
  const { events, outbox } = stores[from.get("keys")!]!;

  const closers = stores.flatMap((store) => (store.close ? [store] : []));
  let closing: Promise<void> | undefined;
  return {
    keys,
    usage,
    rateLimits,
    ...(allowances ? { allowances } : {}),
    ...(events ? { events } : {}),
    ...(outbox ? { outbox } : {}),
    attachLogger(report) {
      for (const store of stores) attachStoreLogger(store, report);
    },
    attachObserver(observer) {
      for (const store of stores) attachStoreObserver(store, observer);
    },
    close() {
      closing ??= (async () => {
        // Every store is closed even when one fails, so no connection or timer is left behind.
        const results = await Promise.allSettled(closers.map((store) => store.close!()));
        const failed = results.flatMap((result) => (result.status === "rejected" ? [result] : []));
        if (failed.length > 0) throw failed[0]!.reason;
      })();
      return closing;
    },
  };
}

function checkUsagePairing(
  rateLimits: NonNullable<StoreParts["rateLimits"]>,
  usage: NonNullable<StoreParts["usage"]>,
  rateLimitsFrom: number,
  usageFrom: number,
): void {
  if (!rateLimits.recordsUsage) return;
  const paired =
    rateLimits.usageStore === undefined
      ? rateLimitsFrom === usageFrom
      : rateLimits.usageStore === usage;
  if (paired) return;
  throw new TypeError(
    `combineStores: the rate-limit store (argument ${rateLimitsFrom + 1}) counts usage inside ` +
      `its own call, but usage would be read from argument ${usageFrom + 1}, which never sees ` +
      "those counts. Pass that store before the one whose usage you meant " +
      "(combineStores(redisStore(...), postgresStore(...))), or create it with recordsUsage: false " +
      "to keep usage elsewhere.",
  );
}
