/**
 * The start of the aggregation window a served request falls in, reading the clock as rarely as
 * it can. A clock read is a system call on some hosts: 150–220 ns a `Date.now()` on the machine the
 * benchmarks ran on, most of what metering added to a ~3.5 µs `verify` (docs/benchmarks.md).
 *
 * - On the system clock, the clock is read once per window: a timer (unref'd) marks the window's
 *   end, and until it fires the window is known. A timer that fires late (a busy event loop) leaves
 *   a few requests in the window that just closed, which the exporter takes as long as it has not
 *   settled (`settle`, 5 s by default), and sends again for the difference if it has: the usage is
 *   billed, in the neighbouring window. A timer that fires early is caught by reading the clock.
 * - On any other clock (a test's manual clock, which moves without timers), it is read every time.
 */
import type { Clock } from "@keyward/core";

export interface CurrentWindow {
  /** The current window's start, epoch ms, a multiple of the window. */
  start(): number;
  /** Stops the timer (the instance is closing). */
  close(): void;
}

export function currentWindow(options: {
  clock: Clock;
  windowMs: number;
  /** True when `clock` is the system clock, which timers follow. */
  timed: boolean;
}): CurrentWindow {
  const { clock, windowMs, timed } = options;
  let start = 0;
  let end = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  return {
    start() {
      if (timer !== undefined) return start;
      const now = clock.now();
      if (now >= end || now < start) {
        start = now - (now % windowMs);
        end = start + windowMs;
      }
      if (timed && !closed) {
        timer = setTimeout(() => {
          timer = undefined;
        }, end - now);
        timer.unref?.();
      }
      return start;
    },
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
