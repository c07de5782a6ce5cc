import { periodicTask } from "../background/periodic-task.js";
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
 * Usage history pruning, on a `periodicTask` like events' retention. Several instances pruning at
 * once is safe: the stores take disjoint batches and fold them into totals atomically (see
 * `UsageStore.prune`).
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
  const { clock } = options;
  const retainMs = options.retainDays * dayMs;
  const dayOf = utcDayFormatter();
  const task = periodicTask({
    task: () => options.prune(dayOf(clock.now() - retainMs)),
    intervalMs: options.intervalMs,
    onError: options.onError,
  });
  return { prune: task.run, start: task.start, close: task.close };
}
