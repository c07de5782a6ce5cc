/** `otel()`'s options, checked when the feature is created (a mistake fails at start). */
import type { MeterProvider, TracerProvider } from "@opentelemetry/api";

export interface OtelOptions {
  /**
   * Where the metrics go. Default: the global one (`metrics.setGlobalMeterProvider`, which the
   * Node SDK sets), as it is when `otel()` is called: start the SDK before it.
   */
  meterProvider?: MeterProvider;
  /**
   * Where the spans go. Default: the global one (`trace.setGlobalTracerProvider`), as it is when
   * `otel()` is called.
   */
  tracerProvider?: TracerProvider;
  /**
   * Put the admitted key's id on `keyward.verifications` and on the `keyward.verify` span
   * (`keyward.key.id`). Off by default: one time series per key can be more than a metrics
   * backend is built for. Never the secret, its hash or the token, with or without this.
   */
  keyIds?: boolean;
}

export function checkOtelOptions(options: unknown): asserts options is OtelOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError("Keyward: otel() takes { meterProvider?, tracerProvider?, keyIds? }");
  }
  const known = new Set(["meterProvider", "tracerProvider", "keyIds"]);
  for (const name of Object.keys(options)) {
    if (!known.has(name)) {
      throw new TypeError(
        `Keyward: otel() has no option \`${name}\`; it takes meterProvider, tracerProvider and keyIds`,
      );
    }
  }
  const { meterProvider, tracerProvider, keyIds } = options as Record<string, unknown>;
  if (
    meterProvider !== undefined &&
    typeof (meterProvider as MeterProvider).getMeter !== "function"
  ) {
    throw new TypeError(
      "Keyward: otel()'s `meterProvider` must be an OpenTelemetry MeterProvider (with getMeter)",
    );
  }
  if (
    tracerProvider !== undefined &&
    typeof (tracerProvider as TracerProvider).getTracer !== "function"
  ) {
    throw new TypeError(
      "Keyward: otel()'s `tracerProvider` must be an OpenTelemetry TracerProvider (with getTracer)",
    );
  }
  if (keyIds !== undefined && typeof keyIds !== "boolean") {
    throw new TypeError("Keyward: otel()'s `keyIds` must be true or false");
  }
}
