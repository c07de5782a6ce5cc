import type { UsageIncrement, UsageStore } from "../storage/usage-store.js";
import { utcDayFormatter } from "./utc-day.js";

export interface UsageRecorderOptions {
  /** How often buffered counts are written; default 1000 ms. */
  flushIntervalMs?: number;
  /** Distinct (key, route, day) entries that trigger an early flush; default 10 000. */
  maxBuffered?: number;
  /** Told about a failed write; the counts stay buffered and are retried on the next flush. */
  onError?: (error: unknown) => void;
}

export interface UsageRecorder {
  /** Counts one request. Synchronous: it never waits on storage. */
  record(keyId: string, method: string, route: string, now: number): void;
  /** The UTC day (`YYYY-MM-DD`) usage at `now` is counted under. */
  dayOf(now: number): string;
  /** Writes everything buffered so far; resolves when the store has it. */
  flush(): Promise<void>;
  /** Final flush; stops the timer. */
  close(): Promise<void>;
}

/**
 * Buffers usage in memory and writes it in batches, so verification never waits on storage.
 * Increments commute (see `UsageStore`), so batches can be merged, split and retried freely.
 * One interval timer per recorder (not per key), started on first use and unref'd so it never
 * keeps a Node process alive.
 */
export function createUsageRecorder(
  store: UsageStore,
  options: UsageRecorderOptions = {},
): UsageRecorder {
  const flushIntervalMs = options.flushIntervalMs ?? 1_000;
  const maxBuffered = options.maxBuffered ?? 10_000;
  const dayOf = utcDayFormatter();
  let buffer = new Map<string, UsageIncrement>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  let closed = false;

  const merge = (
    into: Map<string, UsageIncrement>,
    increment: UsageIncrement,
    entryKey: string,
  ) => {
    const existing = into.get(entryKey);
    if (existing) {
      existing.count += increment.count;
      if (increment.lastUsedAt > existing.lastUsedAt) existing.lastUsedAt = increment.lastUsedAt;
    } else {
      into.set(entryKey, increment);
    }
  };

  const writeBatch = async () => {
    if (buffer.size === 0) return;
    const batch = buffer;
    buffer = new Map();
    try {
      await store.record([...batch.values()]);
    } catch (error) {
      // Put the counts back (merging with anything recorded meanwhile) and try again later.
      for (const [entryKey, increment] of batch) merge(buffer, increment, entryKey);
      options.onError?.(error);
    }
  };

  // Flushes run one after another, so a slow store never sees overlapping batches from us.
  const flush = () => {
    inFlight = inFlight.then(writeBatch);
    return inFlight;
  };

  const startTimer = () => {
    timer = setInterval(() => void flush(), flushIntervalMs);
    (timer as { unref?: () => void }).unref?.();
  };

  return {
    record(keyId, method, route, now) {
      if (!timer && !closed) startTimer();
      const day = dayOf(now);
      const entryKey = `${keyId}\u0000${method}\u0000${route}\u0000${day}`;
      const existing = buffer.get(entryKey);
      if (existing) {
        existing.count += 1;
        if (now > existing.lastUsedAt) existing.lastUsedAt = now;
        return;
      }
      buffer.set(entryKey, { keyId, method, route, day, count: 1, lastUsedAt: now });
      if (buffer.size >= maxBuffered) void flush();
    },
    dayOf,
    flush,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
