/**
 * Time, injected. No algorithm in Keyward reads the system clock directly, so every time-dependent
 * behaviour (expiry, rate-limit windows, usage days) can be tested on a clock the test controls.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and simulations. */
export interface ManualClock extends Clock {
  set(epochMs: number): void;
  advance(ms: number): void;
}

/**
 * @example
 * const clock = manualClock(Date.parse("2026-01-01T00:00:00Z"));
 * clock.advance(60_000);
 */
export function manualClock(start = 0): ManualClock {
  let current = start;
  return {
    now: () => current,
    set: (epochMs) => {
      current = epochMs;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}
