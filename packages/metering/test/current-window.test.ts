/**
 * The current window without a clock read per request: on the system clock one read per window (a
 * timer marks its end), on any other clock a read every time. Timers and `Date.now` are vitest's
 * fake ones, so the test owns time.
 */
import { manualClock } from "@keyward/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { currentWindow } from "../src/current-window.js";

const minute = 60_000;
const start = Date.parse("2026-12-01T10:00:00.000Z");

describe("currentWindow", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: start + 30_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("on the system clock, reads the clock once per window, and moves on when the window ends", () => {
    let reads = 0;
    const clock = {
      now: () => {
        reads++;
        return Date.now();
      },
    };
    const window = currentWindow({ clock, windowMs: minute, timed: true });
    for (let call = 0; call < 1000; call++) expect(window.start()).toBe(start);
    expect(reads).toBe(1);
    vi.advanceTimersByTime(29_999);
    expect(window.start()).toBe(start);
    vi.advanceTimersByTime(1);
    // The timer fired at the window's end: the next call reads the clock, once.
    expect(window.start()).toBe(start + minute);
    expect(window.start()).toBe(start + minute);
    expect(reads).toBe(2);
    window.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a timer that fires before the clock reaches the window's end keeps the window, and waits again", () => {
    // The wall clock lags the timers' (an adjustment back): at the timer, it is still the old window.
    let lag = 0;
    const clock = { now: () => Date.now() - lag };
    const window = currentWindow({ clock, windowMs: minute, timed: true });
    expect(window.start()).toBe(start);
    lag = 5_000;
    vi.advanceTimersByTime(30_000);
    expect(window.start()).toBe(start);
    vi.advanceTimersByTime(5_000);
    expect(window.start()).toBe(start + minute);
    window.close();
  });

  it("on any other clock (a manual one, which timers do not follow), reads it every time", () => {
    const clock = manualClock(start + 59_999);
    const window = currentWindow({ clock, windowMs: minute, timed: false });
    expect(window.start()).toBe(start);
    clock.advance(1);
    expect(window.start()).toBe(start + minute);
    clock.set(start - 1);
    expect(window.start()).toBe(start - minute);
    expect(vi.getTimerCount()).toBe(0);
  });
});
