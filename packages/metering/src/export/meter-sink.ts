/**
 * Where usage is exported: a billing system's meters (Stripe), or any CloudEvents sink. A sink is
 * handed events built from closed ledger windows and answers each one's outcome; it never retries
 * by itself (the exporter does, with backoff, under the same identifier).
 */

/** One window's usage (or the part of it not yet acknowledged), as a sink receives it. */
export interface MeterEvent {
  /** Deterministic: the same window and offset give the same identifier on every instance. */
  readonly identifier: string;
  readonly ownerId: string;
  /** The ledger's meter name (`requests`, `credits`, a host's own). */
  readonly meter: string;
  /** The window's start, epoch ms: the event's timestamp. */
  readonly windowStart: number;
  /** A whole number > 0. */
  readonly value: number;
}

/** What became of one event. */
export type SendOutcome =
  /** The sink holds it (a duplicate the sink recognised counts: it already holds it). */
  | { readonly kind: "acknowledged" }
  /** Not taken, and known not to be: send again later (`retryAfterMs` when the sink said when). */
  | { readonly kind: "retry"; readonly error: string; readonly retryAfterMs?: number }
  /** It may or may not have been taken (a reply lost): send again under the same identifier. */
  | { readonly kind: "uncertain"; readonly error: string; readonly retryAfterMs?: number }
  /** The sink refuses it for good: it goes to the adjustments report. */
  | { readonly kind: "rejected"; readonly error: string };

/** A sink's total for one customer and meter over a period, for reconciliation. */
export interface SinkTotal {
  readonly ownerId: string;
  readonly meter: string;
  readonly total: number;
}

export interface MeterSink {
  /** Names its progress in the ledger: two sinks export the same ledger independently. */
  readonly name: string;
  /** The ledger meters it exports; others are not its concern. */
  readonly meters: readonly string[];
  /** The oldest event timestamp it takes, as an age in ms (Stripe: 35 days); older windows are adjustments. */
  readonly maxAgeMs?: number;
  /**
   * How long it remembers an identifier (Stripe: a rolling 24 hours). A send whose outcome stayed
   * uncertain for longer cannot safely be repeated: it goes to the adjustments report.
   */
  readonly dedupWindowMs?: number;
  /** The most events one `send` takes. */
  readonly batchSize: number;
  /** Sends the events; one outcome per event, in order. Throws only for a bug. */
  send(events: readonly MeterEvent[]): Promise<SendOutcome[]>;
  /** What the sink holds for each owner and meter over [from, to), for `owners` (reconciliation). */
  totals?(owners: readonly string[], from: number, to: number): Promise<SinkTotal[]>;
  close?(): Promise<void>;
}
