/**
 * A fixed-duration closed-loop load generator for `redis.bench.ts`: `concurrency` callers each
 * issue one call, wait for it, and issue the next, for `durationMs`. Throughput is completed calls
 * per second; latencies are per call. mitata times one call at a time, which cannot show what a
 * server sees with many requests waiting on Redis at once.
 */

export interface LoopResult {
  opsPerSecond: number;
  calls: number;
  p50Ms: number;
  p99Ms: number;
}

export async function closedLoop(
  call: () => Promise<unknown>,
  { concurrency, durationMs }: { concurrency: number; durationMs: number },
): Promise<LoopResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  const caller = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      await call();
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    opsPerSecond: (latencies.length / elapsed) * 1_000,
    calls: latencies.length,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
