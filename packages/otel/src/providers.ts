/**
 * Which providers `otel()` reports to, and whether any of them is a real SDK. Without one the
 * feature lists no observer at all, so `verify` is not even wrapped: "a no-op without an SDK" costs
 * nothing, rather than a microsecond's fraction per request spent on no-op instruments.
 *
 * The global metrics API has no proxy: a meter taken before an SDK registers stays a no-op. Hence
 * the documented order: start the SDK, then call `otel()`.
 */
import {
  createNoopMeter,
  type Meter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { scopeName } from "./names.js";

/** The no-op provider a `ProxyTracerProvider` without a delegate hands out. */
const noopTracerProvider = new ProxyTracerProvider().getDelegate();

export interface Providers {
  /** Undefined when metrics go nowhere. */
  meter: Meter | undefined;
  /** Undefined when spans go nowhere. */
  tracer: Tracer | undefined;
}

export function resolveProviders(options: {
  meterProvider?: MeterProvider | undefined;
  tracerProvider?: TracerProvider | undefined;
}): Providers {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(scopeName);
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
  return {
    meter: meter === createNoopMeter() ? undefined : meter,
    tracer: isNoopTracerProvider(tracerProvider) ? undefined : tracerProvider.getTracer(scopeName),
  };
}

function isNoopTracerProvider(provider: TracerProvider): boolean {
  if (provider === noopTracerProvider) return true;
  return provider instanceof ProxyTracerProvider && provider.getDelegate() === noopTracerProvider;
}
