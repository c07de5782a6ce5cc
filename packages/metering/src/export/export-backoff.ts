import type { RandomSource } from "@keyward/core";

/**
 * The wait after `attempts` failed runs in a row: `initialMs` doubled per attempt, capped at
 * `maxMs`, jittered to between half and all of it, so instances that failed together spread out.
 */
export function exportBackoff(
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
