/**
 * An outage fails every request the same way: a database down for a minute at 500 requests a second
 * would be 30,000 identical log lines. The same failure is logged once per `intervalMs`; the next
 * line after the interval says how many were left out meanwhile. The `onError` hook still receives
 * every one (error trackers group and sample on their own).
 */
import { logLine } from "./logger.js";

export interface RepeatFilter {
  /** The suffix to log with this event, or null to leave it out (a repeat inside the interval). */
  admit(message: string, cause: unknown, now: number): string | null;
}

const maxTracked = 100;

export function repeatFilter(intervalMs = 10_000): RepeatFilter {
  const seen = new Map<string, { until: number; leftOut: number }>();
  return {
    admit(message, cause, now) {
      const line = logLine(message, cause);
      const entry = seen.get(line);
      if (entry && now < entry.until) {
        entry.leftOut++;
        return null;
      }
      const leftOut = entry?.leftOut ?? 0;
      seen.delete(line);
      if (seen.size >= maxTracked) seen.delete(seen.keys().next().value as string);
      seen.set(line, { until: now + intervalMs, leftOut: 0 });
      return leftOut > 0 ? ` (${leftOut} more like it since it was last logged)` : "";
    },
  };
}
