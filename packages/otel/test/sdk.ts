/**
 * The real OpenTelemetry SDK, as the tests use it: a meter provider read on demand, and a tracer
 * provider exporting to memory, with the async-hooks context manager Node hosts register.
 */
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A reader that collects when asked, cumulatively, as Prometheus scrapes. */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface CollectedPoint {
  attributes: Record<string, unknown>;
  value: number | Histogram;
}

export function meterSdk() {
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  /** Every point of every instrument, by instrument name. */
  const collect = async (): Promise<Map<string, CollectedPoint[]>> => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw errors[0];
    const byName = new Map<string, CollectedPoint[]>();
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        const points = (metric.dataPoints as DataPoint<number | Histogram>[]).map((point) => ({
          attributes: { ...point.attributes },
          value: point.value,
        }));
        byName.set(metric.descriptor.name, points);
      }
    }
    return byName;
  };
  return { meterProvider, collect, shutdown: () => meterProvider.shutdown() };
}

let contextManager: AsyncLocalStorageContextManager | undefined;

export function traceSdk() {
  if (contextManager === undefined) {
    contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
  }
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { tracerProvider, exporter, shutdown: () => tracerProvider.shutdown() };
}
