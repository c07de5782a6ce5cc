import type { Clock } from "../clock.js";
import type { UsageStore } from "../storage/usage-store.js";
import { utcDayFormatter } from "./utc-day.js";

const dayMs = 24 * 60 * 60 * 1000;

export interface UsageRetention {
  /** Prunes the daily detail older than the retention now; resolves with the key-days removed. */
  prune(): Promise<number>;
  /** Starts the timer if it is not running (called on verification and usage reads). */
  start(): void;
  close(): void;
}

/**
 * Usage history pruning, the same shape as events' retention (`events/event-retention.ts`): one
 * interval timer per instance, unref'd, started on first use (Workers refuse timers set outside a
 * request), never doubled while a run is going. Several instances pruning at once is safe: the
 * stores take disjoint batches and fold them into totals atomically (see `UsageStore.prune`).
 *
 * The cutoff is a UTC day: with `retainDays: 30`, today and the 30 days before it are kept.
 */
export function usageRetention(options: {
  /** `UsageStore.prune` of the usage store. */
  prune: NonNullable<UsageStore["prune"]>;
  clock: Clock;
  retainDays: number;
  intervalMs: number | false;
  onError(error: unknown): void;
}): UsageRetention {
  const { clock, intervalMs } = options;
  const retainMs = options.retainDays * dayMs;
  const dayOf = utcDayFormatter();
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<number> | undefined;
  let closed = false;

  const prune = () => {
    running ??= options.prune(dayOf(clock.now() - retainMs)).finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    prune,
    start() {
      if (timer !== undefined || closed || intervalMs === false) return;
      timer = setInterval(() => {
        prune().catch(options.onError);
      }, intervalMs);
      (timer as { unref?: () => void }).unref?.();
    },
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
