/**
 * `RateLimitStore` in process memory, for one process: state per key in a `Map`, stepped with
 * `stepRateLimit`.
 */
import { stepRateLimit } from "../rate-limit/index.js";
import type { RateLimitPolicy, RateLimitState } from "../rate-limit/types.js";
import type { RateLimitStore } from "../storage/rate-limit-store.js";

export interface MemoryRateLimitStoreOptions {
  /**
   * Most keys held at once. Past it, the least recently used entry is dropped, which hands that
   * key a fresh allowance: set it well above the number of keys active within a window. Default:
   * no cap beyond expiry.
   */
  maxKeys?: number;
}

export interface MemoryRateLimitStore extends RateLimitStore {
  /** Entries currently held, expired ones not yet evicted included. */
  readonly size: number;
}

interface Entry {
  /** The policy the state belongs to; state written under another policy is not reused. */
  policy: string;
  state: RateLimitState;
  expiresAt: number;
}

/** Entries the amortised sweep examines on every `consume`: more than one, to outpace inserts. */
const sweepBatch = 2;

/**
 * Atomic because each `consume` reads, steps and writes a key's state synchronously, within one
 * turn of the event loop. Memory stays bounded without timers: an expired entry is dropped when
 * its key is next used, and every call also moves a sweep cursor two entries further through the
 * map, dropping the expired ones it passes. Each call adds at most one entry and the cursor
 * advances by two, so it laps the whole map within about `size` calls and an expired entry is gone
 * within two laps: keys that stop being used do not pile up.
 *
 * @example
 * const store = memoryRateLimitStore({ maxKeys: 100_000 });
 * const decision = await store.consume(keyId, toPolicy({ limit: 60, window: "1m" }), clock.now());
 */
export function memoryRateLimitStore(
  options: MemoryRateLimitStoreOptions = {},
): MemoryRateLimitStore {
  const { maxKeys = Number.POSITIVE_INFINITY } = options;
  if (!(maxKeys >= 1)) {
    throw new TypeError(`Invalid maxKeys ${String(maxKeys)}: it must be at least 1`);
  }
  // Insertion order is the eviction order: an entry is re-inserted whenever it is written.
  const entries = new Map<string, Entry>();

  // A Map iterator stays valid while the map changes: it skips deleted entries and reaches those
  // appended after it was created, so one cursor walks the map across calls, then starts over.
  let cursor = entries.entries();
  const sweep = (now: number) => {
    for (let examined = 0; examined < sweepBatch; examined++) {
      let next = cursor.next();
      if (next.done) {
        cursor = entries.entries();
        next = cursor.next();
        if (next.done) return;
      }
      const [key, entry] = next.value;
      if (entry.expiresAt <= now) entries.delete(key);
    }
  };

  return {
    get size() {
      return entries.size;
    },

    async consume(key: string, policy: RateLimitPolicy, now: number) {
      const signature = `${policy.algorithm}:${policy.limit}:${policy.windowMs}`;
      const stored = entries.get(key);
      const current =
        stored && stored.policy === signature && stored.expiresAt > now ? stored.state : undefined;
      const { state, decision, expiresAt } = stepRateLimit(current, now, policy);

      entries.delete(key);
      if (expiresAt > now) entries.set(key, { policy: signature, state, expiresAt });
      sweep(now);
      if (entries.size > maxKeys) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      return decision;
    },
  };
}
