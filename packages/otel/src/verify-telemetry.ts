/**
 * The verification observer `otel()` lists, through `observeVerify`, at the kernel's
 * `verify` phase `around`: the `keyward.verifications` and `keyward.limit.refusals` counters, the `keyward.verify.duration`
 * histogram (seconds) and one `keyward.verify` span per verification, current while it runs so the
 * store calls it makes are its children, and itself a child of the host's span when there is one.
 *
 * Attributes are the outcome (`ok` or the error code), the principal's kind and tier, the refusing
 * layer, the HTTP status on the span, and the key id only when the host opts in. Never the token,
 * the secret or its hash: the observation does not carry them.
 */

import type { VerifyObservation, VerifyObserver } from "@keyward/core";
import {
  type Attributes,
  context,
  type Meter,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { attributeNames, instrumentNames, spanNames } from "./names.js";
import { Tally } from "./tally.js";

/** Histogram bounds for a verification, in seconds: a microsecond (in memory) to a second. */
const verifyBuckets = [
  0.000_001, 0.000_002_5, 0.000_005, 0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5,
  0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];

export interface VerifyTelemetry {
  observer: VerifyObserver<Span | undefined>;
  /** Stops reporting the counters (the feature's `close`). */
  close(): void;
}

export function verifyTelemetry(
  meter: Meter | undefined,
  tracer: Tracer | undefined,
  keyIds: boolean,
): VerifyTelemetry {
  const verifications = new Tally((outcome, kind, tier, keyId) => {
    const attributes: Attributes = { [attributeNames.outcome]: outcome };
    if (kind !== "") attributes[attributeNames.principalKind] = kind;
    if (tier !== "") attributes[attributeNames.tier] = tier;
    if (keyId !== "") attributes[attributeNames.keyId] = keyId;
    return attributes;
  });
  const refusals = new Tally((layer) => ({ [attributeNames.layer]: layer }));
  const verificationCounter = meter?.createObservableCounter(instrumentNames.verifications, {
    description:
      "Verifications decided, by outcome (ok or the error code), principal kind and tier",
    unit: "{verification}",
  });
  const refusalCounter = meter?.createObservableCounter(instrumentNames.limitRefusals, {
    description: "Requests refused with 429, by the limit layer that refused them",
    unit: "{request}",
  });
  const reportVerifications = verifications.report.bind(verifications);
  const reportRefusals = refusals.report.bind(refusals);
  verificationCounter?.addCallback(reportVerifications);
  refusalCounter?.addCallback(reportRefusals);
  const duration = meter?.createHistogram(instrumentNames.verifyDuration, {
    description: "How long a verification took, from the call to the decision",
    unit: "s",
    advice: { explicitBucketBoundaries: verifyBuckets },
  });
  // No attributes on the histogram: the SDK hashes a record's attributes on every call, which
  // cost about a microsecond per verification with one attribute (docs/benchmarks.md,
  // "Observability"); the outcome is on the counter.
  const noAttributes: Attributes = Object.freeze({});

  const count = (observation: VerifyObservation) => {
    verifications.add(
      observation.outcome,
      observation.principalKind ?? "",
      observation.tier ?? "",
      keyIds ? (observation.keyId ?? "") : "",
    );
    if (observation.layer !== undefined) refusals.add(observation.layer, "", "", "");
    duration?.record(observation.durationSeconds, noAttributes);
  };

  const endSpan = (span: Span, observation: VerifyObservation) => {
    span.setAttribute(attributeNames.outcome, observation.outcome);
    span.setAttribute(attributeNames.httpStatus, observation.status);
    if (observation.principalKind !== undefined) {
      span.setAttribute(attributeNames.principalKind, observation.principalKind);
    }
    if (observation.tier !== undefined) span.setAttribute(attributeNames.tier, observation.tier);
    if (observation.layer !== undefined) span.setAttribute(attributeNames.layer, observation.layer);
    if (keyIds && observation.keyId !== undefined) {
      span.setAttribute(attributeNames.keyId, observation.keyId);
    }
    // A refusal is a decision, not a failure of the span; a 500 is.
    if (observation.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };

  const observer: VerifyObserver<Span | undefined> = tracer
    ? {
        start: () => tracer.startSpan(spanNames.verify, { kind: SpanKind.INTERNAL }),
        within: (span, verify) =>
          span === undefined
            ? verify()
            : context.with(trace.setSpan(context.active(), span), verify),
        verified(observation, span) {
          count(observation);
          if (span !== undefined) endSpan(span, observation);
        },
      }
    : { verified: count };

  return {
    observer,
    close() {
      verificationCounter?.removeCallback(reportVerifications);
      refusalCounter?.removeCallback(reportRefusals);
    },
  };
}
