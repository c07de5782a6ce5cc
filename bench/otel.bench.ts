/**
 * What `otel()` costs `keyward.verify()` on the memory store, in one run: without the feature; with
 * it and no OpenTelemetry SDK (the API alone: it then lists no observer, so the target is within
 * 3 %); and with the metrics SDK and a reader (a Prometheus-style pull reader that collects when
 * scraped; the target is within 25 %). Same config, key and options, every call admitted. The sides
 * are measured in the order `KEYWARD_BENCH_ORDER` gives (`after-first` reverses it): the side
 * measured later runs on a warmer process, so a claim is checked in both orders.
 *
 * @example
 * npx pnpm@10 bench otel.bench.ts
 * KEYWARD_BENCH_ORDER=after-first npx pnpm@10 bench otel.bench.ts
 */
import { bench, do_not_optimize, group, summary } from "mitata";
import { otelSides } from "./support/otel-sides.js";

const { reader, meterProvider, without, apiOnly, withSdk } = await otelSides();
// The reader collects now and then, as a scrape would, so the SDK's storage is really read.
const scrape = setInterval(() => void reader.collect(), 1_000);
scrape.unref();

function compare(
  title: string,
  beforeCall: () => unknown,
  afterCall: () => unknown,
  after: string,
) {
  const sides = [
    () => bench("without otel()", async () => do_not_optimize(await beforeCall())).baseline(true),
    () => bench(after, async () => do_not_optimize(await afterCall())),
  ];
  if (process.env.KEYWARD_BENCH_ORDER === "after-first") sides.reverse();
  summary(() => {
    group(title, () => {
      for (const side of sides) side();
    });
  });
}

compare(
  "verify() on memory: otel() with no SDK (target within 3 %)",
  without,
  apiOnly,
  "otel(), no SDK",
);
compare(
  "verify() on memory: otel() with the metrics SDK and a reader (target within 25 %)",
  without,
  withSdk,
  "otel({ meterProvider }), SDK + reader",
);

export async function teardown() {
  clearInterval(scrape);
  await meterProvider.shutdown();
}
