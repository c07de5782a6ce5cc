import type { Clock } from "../clock.js";
import type { EventLog } from "../storage/event-log.js";

const dayMs = 24 * 60 * 60 * 1000;

export interface EventRetention {
  /** Deletes events older than the retention now; resolves with how many were deleted. */
  prune(): Promise<number>;
  /** Starts the timer if it is not running (called when events are first written or read). */
  start(): void;
  close(): void;
}

/**
 * Pruning off the request path: one interval timer per instance, unref'd so it never keeps a
 * process alive, started on first use (Workers refuse timers set outside a request). A run that
 * is still going when the next is due is not doubled. Several instances pruning at once is safe:
 * each deletes what is older than its cutoff, and the stores' deletes are idempotent.
 */
export function eventRetention(options: {
  log: EventLog;
  clock: Clock;
  retainDays: number;
  intervalMs: number | false;
  onError(error: unknown): void;
}): EventRetention {
  const { log, clock, intervalMs } = options;
  const retainMs = options.retainDays * dayMs;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<number> | undefined;
  let closed = false;

  const prune = () => {
    running ??= log.prune(clock.now() - retainMs).finally(() => {
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
