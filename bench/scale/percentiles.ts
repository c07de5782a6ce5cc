/** Latency samples → the figures the report keeps (milliseconds, nearest-rank percentiles). */
export interface LatencySummary {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

export function summarise(samplesMs: readonly number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const rank = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    samples: sorted.length,
    p50Ms: round(rank(0.5)),
    p99Ms: round(rank(0.99)),
    meanMs: round(total / sorted.length),
  };
}

/** Times `run` once per item, one after another (a closed loop of one: latency, not throughput). */
export async function timeEach<T>(
  items: readonly T[],
  run: (item: T) => Promise<unknown>,
): Promise<number[]> {
  const samples: number[] = [];
  for (const item of items) {
    const started = performance.now();
    await run(item);
    samples.push(performance.now() - started);
  }
  return samples;
}

export const round = (value: number, digits = 4) => Number(value.toPrecision(digits));
