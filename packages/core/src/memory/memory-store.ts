import type { KeywardStore, StoreParts } from "../storage/index.js";
import { memoryKeyStore } from "./memory-key-store.js";
import { memoryRateLimitStore } from "./memory-rate-limit-store.js";
import { memoryUsageStore } from "./memory-usage-store.js";

export interface MemoryStoreOptions {
  /** Upper bound on rate-limit entries kept at once; see `memoryRateLimitStore`. */
  maxRateLimitKeys?: number;
}

/**
 * Keys, usage and rate limits in process memory: for development, tests and single-instance
 * deployments that accept losing keys on restart. Rate-limit state is bounded: expired entries
 * are evicted as the store is used, with no timer per key.
 *
 * @example
 * const keyward = createKeyward({ store: memoryStore(), scopes, tiers, jwt: { secret } });
 */
export function memoryStore(options: MemoryStoreOptions = {}) {
  const keys = memoryKeyStore();
  const usage = memoryUsageStore();
  const rateLimits = memoryRateLimitStore(
    options.maxRateLimitKeys === undefined ? {} : { maxKeys: options.maxRateLimitKeys },
  );
  return {
    keys,
    // No `outbox` part: `webhooks()` builds the memory outbox on this event log when it is listed
    // (`webhookOutboxOf`), so a host without webhooks neither runs nor bundles it.
    events: keys.events,
    usage,
    rateLimits,
    async close() {},
    /** Everything the store holds, as plain data: for tests that inspect what is persisted. */
    snapshot: () => ({
      keys: keys.snapshot(),
      usage: usage.snapshot(),
      events: keys.events.snapshot(),
    }),
  } satisfies KeywardStore & StoreParts & { snapshot(): unknown };
}
