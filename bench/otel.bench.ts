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
import { createKeyward, type KeywardFeature, memoryStore } from "@keyward/core";
import { otel } from "@keyward/otel";
import { AggregationTemporality, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { bench, do_not_optimize, group, summary } from "mitata";

const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const verifyOptions = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };

/** A reader that collects only when asked, as the Prometheus exporter does on a scrape. */
class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

async function prepare(features: KeywardFeature<string, unknown>[]) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read profiles" },
    tiers: { pro: unlimited },
    features,
  });
  const { key } = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "pro",
    name: "bench",
    scopes: ["profile:read"],
    tier: "pro",
  });
  const header = `Bearer ${key}`;
  const check = await keyward.verify(header, verifyOptions);
  if (!check.ok) throw new Error(`refused the bench key: ${check.error.detail}`);
  return () => keyward.verify(header, verifyOptions);
}

const reader = new PullReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const without = await prepare([]);
const apiOnly = await prepare([otel()]);
const withSdk = await prepare([otel({ meterProvider })]);
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
