/**
 * Maintenance off the request path (event retention, usage retention): one interval timer per
 * instance, unref'd so it never keeps a process alive, started on first use (Workers refuse timers
 * set outside a request). A run still going when the next is due is not doubled, and a direct
 * `run()` meanwhile shares it.
 */
export interface PeriodicTask<T> {
  /** Runs the task now, or joins the run in progress. */
  run(): Promise<T>;
  /** Starts the timer if it is not running; a no-op after `close()` or with `intervalMs: false`. */
  start(): void;
  close(): void;
}

export function periodicTask<T>(options: {
  task(): Promise<T>;
  intervalMs: number | false;
  onError(error: unknown): void;
}): PeriodicTask<T> {
  const { intervalMs } = options;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<T> | undefined;
  let closed = false;

  const run = () => {
    running ??= options.task().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    run,
    start() {
      if (timer !== undefined || closed || intervalMs === false) return;
      timer = setInterval(() => {
        run().catch(options.onError);
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
