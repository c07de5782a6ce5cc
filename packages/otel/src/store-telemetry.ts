/**
 * The store observer `otel()` attaches to the stores when it is installed (`attachStoreObserver`):
 * the Redis and PostgreSQL stores report each call their call guard makes, so `keyward.store.duration` (seconds, by store,
 * operation and outcome) and one `keyward.store` span per call (a child of the current span: the
 * `keyward.verify` that made it), and `keyward.store.breaker` (1 open, 0 closed) per store.
 *
 * The operation is a Redis script's name or an SQL command: never a key, a value or a statement.
 */

import type { StoreObserver } from "@keyward/core";
import {
  type Attributes,
  type Meter,
  type ObservableResult,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from "@opentelemetry/api";
import { attributeNames, instrumentNames, spanNames } from "./names.js";

/** Histogram bounds for a store call, in seconds: 100 µs to 5 s (past any store's deadline). */
const storeBuckets = [
  0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

export interface StoreTelemetry {
  observer: StoreObserver;
  close(): void;
}

export function storeTelemetry(
  meter: Meter | undefined,
  tracer: Tracer | undefined,
): StoreTelemetry {
  const duration = meter?.createHistogram(instrumentNames.storeDuration, {
    description: "How long a store's call to its database took, by store, operation and outcome",
    unit: "s",
    advice: { explicitBucketBoundaries: storeBuckets },
  });
  const breakers = new Map<string, number>();
  const breakerGauge = meter?.createObservableGauge(instrumentNames.storeBreaker, {
    description: "Whether the store's circuit breaker is open (1) or closed (0)",
    unit: "1",
  });
  const reportBreakers = (result: ObservableResult) => {
    for (const [store, open] of breakers) result.observe(open, { [attributeNames.store]: store });
  };
  breakerGauge?.addCallback(reportBreakers);

  const observer: StoreObserver = {
    callStarted(storeName, operation) {
      const store = storeName.toLowerCase();
      const started = performance.now();
      const span = tracer?.startSpan(spanNames.storeCall, {
        kind: SpanKind.CLIENT,
        attributes: {
          [attributeNames.store]: store,
          [attributeNames.operation]: operation,
          "db.system.name": store,
        },
      });
      return (outcome) => {
        const attributes: Attributes = {
          [attributeNames.store]: store,
          [attributeNames.operation]: operation,
          [attributeNames.outcome]: outcome,
        };
        duration?.record((performance.now() - started) / 1000, attributes);
        if (span !== undefined) {
          span.setAttribute(attributeNames.outcome, outcome);
          if (outcome !== "ok" && outcome !== "error")
            span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        }
      };
    },
    breakerChanged(store, open) {
      breakers.set(store.toLowerCase(), open ? 1 : 0);
    },
  };
  return {
    observer,
    close() {
      breakerGauge?.removeCallback(reportBreakers);
    },
  };
}
