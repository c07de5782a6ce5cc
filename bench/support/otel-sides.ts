/**
 * What both OpenTelemetry cost benches compare (`otel.bench.ts` with mitata, `otel-interleaved.ts`
 * in turns): the same admitted `verify()` on the memory store without `otel()`, with `otel()` and
 * no SDK, and with the metrics SDK and a pull reader.
 */
import { createKeyward, type KeywardFeature, memoryStore } from "@keyward/core";
import { otel } from "@keyward/otel";
import { AggregationTemporality, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";

const verifyOptions = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };

/** A reader that collects only when asked, as the Prometheus exporter does on a scrape. */
export class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One admitted verification of a fresh key on an instance listing `features`. */
async function prepare(features: KeywardFeature<string, unknown>[]) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read profiles" },
    tiers: { pro: { rateLimit: { limit: 1_000_000_000, window: "1m" } } },
    jwt: false,
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

/**
 * The three sides, and the SDK side's reader (to collect now and then, as a scrape) and provider
 * (to shut down).
 */
export async function otelSides() {
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    reader,
    meterProvider,
    without: await prepare([]),
    apiOnly: await prepare([otel()]),
    withSdk: await prepare([otel({ meterProvider })]),
  };
}
