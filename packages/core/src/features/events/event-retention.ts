import { periodicTask } from "../../background/periodic-task.js";
import type { Clock } from "../../clock.js";
import type { EventLog } from "../../storage/event-log.js";

const dayMs = 24 * 60 * 60 * 1000;

export interface EventRetention {
  /** Deletes events older than the retention now; resolves with how many were deleted. */
  prune(): Promise<number>;
  /** Starts the timer if it is not running (called when events are first written or read). */
  start(): void;
  close(): void;
}

/**
 * Pruning off the request path, on a `periodicTask`. Several instances pruning at once is safe:
 * each deletes what is older than its cutoff, and the stores' deletes are idempotent.
 */
export function eventRetention(options: {
  log: EventLog;
  clock: Clock;
  retainDays: number;
  intervalMs: number | false;
  onError(error: unknown): void;
}): EventRetention {
  const { log, clock } = options;
  const retainMs = options.retainDays * dayMs;
  const task = periodicTask({
    task: () => log.prune(clock.now() - retainMs),
    intervalMs: options.intervalMs,
    onError: options.onError,
  });
  return { prune: task.run, start: task.start, close: task.close };
}
