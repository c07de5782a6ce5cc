/**
 * `otel()`'s cost on `verify()`, measured so that machine load falls on every side alike: the
 * sides (no feature, `otel()` with no SDK, `otel()` with the metrics SDK and a reader) take turns
 * in short rounds, many times over, and each side's figure is the median of its rounds. The
 * mitata run (`otel.bench.ts`) shows distributions; this one gives the ratios docs/benchmarks.md
 * quotes when the machine is shared.
 *
 * @example
 * node --conditions=@keyward/source --import tsx otel-interleaved.ts
 */
import { otelSides } from "./support/otel-sides.js";

const rounds = Number(process.env.ROUNDS ?? 300);
const callsPerRound = Number(process.env.CALLS ?? 2_000);

const { reader, meterProvider, without, apiOnly, withSdk } = await otelSides();
const sides: [string, () => Promise<unknown>][] = [
  ["without otel()", without],
  ["otel(), no SDK", apiOnly],
  ["otel({ meterProvider }), SDK + reader", withSdk],
];
const times = sides.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) {
  // A different side first each round: none is always the warmer one.
  for (let turn = 0; turn < sides.length; turn++) {
    const index = (round + turn) % sides.length;
    const call = sides[index]![1];
    const started = performance.now();
    for (let i = 0; i < callsPerRound; i++) await call();
    times[index]!.push(((performance.now() - started) * 1000) / callsPerRound);
  }
  if (round % 50 === 0) await reader.collect(); // a scrape now and then
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const base = median(times[0]!);
console.log(
  `node ${process.version}; ${rounds} rounds × ${callsPerRound} calls per side, interleaved`,
);
for (const [index, [name]] of sides.entries()) {
  const value = median(times[index]!);
  console.log(
    `${name.padEnd(40)} ${value.toFixed(3)} µs/call (median round)  ×${(value / base).toFixed(3)}`,
  );
}
await meterProvider.shutdown();
