/**
 * Usage of requests whose rate-limit call failed and that the fail-open policy decided anyway
 * (failing closed, they are 500s and count for nothing). Those requests presented a valid key and
 * were answered, so they count (as they would with any store); their hits wait here, merged per key, endpoint and day,
 * and are written with `UsageStore.record` once Redis answers again. Bounded: past `maxEntries`
 * distinct entries, further hits are dropped and reported.
 *
 * A call that timed out may still have reached Redis and counted its hit there, so during an
 * outage usage can be counted twice for a few requests, never lost for the others.
 */
import type { UsageHit, UsageIncrement, UsageStore } from "@keyward/core";
import { mergeUsageIncrement } from "@keyward/core/toolkit";

export interface UsageBacklog {
  add(hit: UsageHit, now: number): void;
  /** Writes what is held; failures put it back. Resolves when done (never rejects). */
  flush(): Promise<void>;
  readonly size: number;
}

export function usageBacklog(
  usage: UsageStore,
  maxEntries: number,
  onError: (error: unknown) => void,
): UsageBacklog {
  let held = new Map<string, UsageIncrement>();
  let flushing: Promise<void> | undefined;
  let dropped = 0;

  const write = async () => {
    const batch = held;
    held = new Map();
    try {
      await usage.record([...batch.values()]);
    } catch {
      // Still down; keep the counts for the next attempt. The failure was reported by the guard.
      for (const increment of batch.values()) mergeUsageIncrement(held, increment, maxEntries);
    }
    if (dropped > 0) {
      onError(
        new Error(`@keyward/redis: usage of ${dropped} requests was dropped during an outage`),
      );
      dropped = 0;
    }
  };

  return {
    get size() {
      return held.size;
    },
    add(hit, now) {
      if (!mergeUsageIncrement(held, incrementOf(hit, now), maxEntries)) dropped += 1;
    },
    flush() {
      if (held.size === 0) return flushing ?? Promise.resolve();
      flushing ??= write().finally(() => {
        flushing = undefined;
      });
      return flushing;
    },
  };
}

/** One request's usage as an increment, with its use fields when it has some. */
export function incrementOf(
  { keyId, method, route, day, useFields }: UsageHit,
  now: number,
): UsageIncrement {
  const increment: UsageIncrement = { keyId, method, route, day, count: 1, lastUsedAt: now };
  if (useFields !== undefined) increment.useFields = useFields;
  return increment;
}
