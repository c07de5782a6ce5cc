/**
 * A warning about how Keyward is being called (a guard naming a scope that is not configured, a
 * session claiming an unknown tier) is worth one line, not one per request: each distinct warning
 * is logged the first time only. Bounded, so a stream of distinct values (say, random tier claims)
 * cannot grow memory: past the bound, further distinct warnings are dropped.
 */
import type { KeywardLogger } from "./logger.js";

export type WarnOnce = (key: string, message: () => string) => void;

export function warnOnce(logger: KeywardLogger, maxDistinct = 100): WarnOnce {
  const seen = new Set<string>();
  return (key, message) => {
    if (seen.has(key) || seen.size >= maxDistinct) return;
    seen.add(key);
    try {
      logger.warn(message());
    } catch {}
  };
}
