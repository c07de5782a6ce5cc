import type { RandomSource } from "@keyward/core";

/**
 * The wait before attempt `attempts + 1`: `initialMs` doubled per failed attempt, capped at
 * `maxMs`, then jittered to between half and all of it. Half-to-all ("equal jitter") spreads the
 * retries of many deliveries that failed together, while each wait is still at least the whole of
 * the one before it, so gaps grow as a receiver expects from exponential backoff.
 */
export function retryDelay(
  attempts: number,
  backoff: { initialMs: number; maxMs: number },
  random: RandomSource,
): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 52);
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** exponent);
  const bytes = new Uint8Array(4);
  random.read(bytes);
  const fraction = new DataView(bytes.buffer).getUint32(0) / 2 ** 32;
  return Math.round(ceiling / 2 + (fraction * ceiling) / 2);
}
