/**
 * Usage buffered in the store: `record` only adds to a map in memory, and the map is written as one
 * batch on an interval, before any read, and on `close()`. Off by default, because Keyward's core
 * already buffers usage on the request path and hands the store whole batches; turn it on when
 * something else calls `record` once per request.
 */
import type { UsageIncrement, UsageStore } from "@keyward/core";
import { mergeUsageIncrements } from "@keyward/core/toolkit";

export interface BufferedUsageStore extends UsageStore {
  /** Writes whatever is buffered. A failed write keeps the counts buffered for the next try. */
  flush(): Promise<void>;
  /** Stops the interval and flushes. */
  close(): Promise<void>;
}

export interface BufferedUsageOptions {
  flushIntervalMs: number;
  /** Rows buffered before a write is started without waiting for the interval. Default 5,000. */
  maxBufferedRows?: number;
  /** Told when an interval flush fails; the counts stay buffered. */
  onError(error: unknown): void;
}

export function bufferedUsageStore(
  inner: UsageStore,
  options: BufferedUsageOptions,
): BufferedUsageStore {
  const { flushIntervalMs, maxBufferedRows = 5_000, onError } = options;
  let pending = new Map<string, UsageIncrement>();
  /** Flushes run one after another, so a batch is never written twice or out of order with a retry. */
  let queue: Promise<void> = Promise.resolve();

  const writeBuffered = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await inner.record([...batch.values()]);
    } catch (error) {
      // Put the counts back, merged with whatever arrived meanwhile: nothing is lost or doubled.
      pending = mergeUsageIncrements(batch, pending.values());
      throw error;
    }
  };

  const flush = () => {
    const run = queue.then(writeBuffered);
    queue = run.catch(() => {});
    return run;
  };

  const timer = setInterval(() => flush().catch(onError), flushIntervalMs);
  (timer as { unref?: () => void }).unref?.();

  return {
    async record(increments) {
      mergeUsageIncrements(pending, increments);
      // The counts are accepted once merged: a failed write must not reject, or a caller that
      // retries would count them twice. They stay buffered and the error is reported.
      if (pending.size >= maxBufferedRows) await flush().catch(onError);
    },
    async read(keyId) {
      await flush();
      return inner.read(keyId);
    },
    async lastUsed(keyIds) {
      await flush();
      return inner.lastUsed(keyIds);
    },
    // Written first, like a read: buffered counts may be for days the prune removes (a late
    // batch), and must be folded with the rest, not written after it as fresh daily detail.
    ...(inner.prune
      ? {
          async prune(beforeDay: string) {
            await flush();
            return inner.prune!(beforeDay);
          },
        }
      : {}),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
