/**
 * The exporter: closed ledger windows to each sink, one exporter at a time across instances (a
 * lease in the ledger's store), retried with backoff under the same identifier until the sink
 * acknowledges them.
 *
 * One run, per sink: take the lease; read the closed windows the sink has not acknowledged; set
 * aside those it cannot take (too old for its timestamps, or a send that stayed uncertain longer
 * than it remembers identifiers); freeze each remaining window's send (`prepare`: a send frozen by
 * an earlier run, maybe on another instance that crashed, is sent again as it was); send; record
 * what the sink acknowledged. A crash anywhere in between leaves either no frozen send (the next
 * run freezes the same one) or a frozen send (the next run repeats it, the sink drops the repeat).
 */
import type { Clock, RandomSource } from "@keyward/core";
import type { LedgerWindow, UsageLedger } from "../ledger/usage-ledger.js";
import { eventIdentifier } from "./event-identifier.js";
import { exportBackoff } from "./export-backoff.js";
import type { MeterEvent, MeterSink, SendOutcome } from "./meter-sink.js";

/** What one run did for one sink; also what metrics count. */
export interface ExportRun {
  readonly sink: string;
  readonly acknowledged: number;
  /** Events to be sent again (retry or uncertain). */
  readonly retried: number;
  /** Windows set aside as adjustments. */
  readonly setAside: number;
  /** The sink is backing off until then (epoch ms), or undefined. */
  readonly backoffUntil?: number;
}

export interface ExporterOptions {
  ledger: UsageLedger;
  sinks: readonly MeterSink[];
  windowMs: number;
  /** How long after a window's end it is exported: writes of requests still in flight land first. */
  settleMs: number;
  clock: Clock;
  random: RandomSource;
  /** This instance's name in the lease. */
  holder: string;
  leaseTtlMs: number;
  /** The most windows one run sends to one sink. */
  maxWindowsPerRun: number;
  backoff: { initialMs: number; maxMs: number };
  onRun?(run: ExportRun): void;
  onError?(sink: string, message: string): void;
}

export interface Exporter {
  /** One run over every sink; false when another instance holds the lease. */
  run(): Promise<ExportRun[] | false>;
  /** The latest error per sink, and when. */
  lastErrors(): ReadonlyMap<string, { message: string; at: number }>;
  release(): Promise<void>;
}

const leaseName = "keyward-metering-export";

export function createExporter(options: ExporterOptions): Exporter {
  const { ledger, sinks, clock } = options;
  const errors = new Map<string, { message: string; at: number }>();
  const failures = new Map<string, number>();
  const backoffUntil = new Map<string, number>();

  const noteError = (sink: string, message: string) => {
    errors.set(sink, { message, at: clock.now() });
    options.onError?.(sink, message);
  };

  const runSink = async (sink: MeterSink): Promise<ExportRun> => {
    const now = clock.now();
    const waitUntil = backoffUntil.get(sink.name) ?? 0;
    if (waitUntil > now) {
      return { sink: sink.name, acknowledged: 0, retried: 0, setAside: 0, backoffUntil: waitUntil };
    }
    const due = await ledger.due({
      sink: sink.name,
      meters: sink.meters,
      startedBefore: now - options.windowMs - options.settleMs + 1,
      limit: options.maxWindowsPerRun,
    });
    let setAside = 0;
    const sendable: (LedgerWindow & { from: number; value: number })[] = [];
    for (const window of due) {
      const aside = asideReason(sink, window, now);
      if (aside !== undefined) {
        const value = window.total - window.acknowledged;
        await ledger.setAside(sink.name, { ...windowOf(window), value, ...aside }, now);
        setAside++;
        continue;
      }
      const from = window.pending?.from ?? window.acknowledged;
      sendable.push({ ...windowOf(window), from, value: window.total - from });
    }
    const prepared = (await ledger.prepare(sink.name, sendable, now)).filter(
      (send) => send.value > 0,
    );
    const events: MeterEvent[] = prepared.map((send) => ({
      identifier: eventIdentifier(send, send.from),
      ownerId: send.ownerId,
      meter: send.meter,
      windowStart: send.windowStart,
      value: send.value,
    }));
    let acknowledged = 0;
    let retried = 0;
    let retryAfterMs = 0;
    for (let offset = 0; offset < events.length; offset += sink.batchSize) {
      const batch = events.slice(offset, offset + sink.batchSize);
      const outcomes = await sendSafely(sink, batch);
      const taken: (LedgerWindow & { from: number })[] = [];
      for (const [index, outcome] of outcomes.entries()) {
        const send = prepared[offset + index]!;
        if (outcome.kind === "acknowledged") {
          taken.push({ ...windowOf(send), from: send.from });
        } else if (outcome.kind === "rejected") {
          noteError(sink.name, outcome.error);
          await ledger.setAside(
            sink.name,
            { ...windowOf(send), value: send.value, reason: "rejected", detail: outcome.error },
            clock.now(),
          );
          setAside++;
        } else {
          noteError(sink.name, outcome.error);
          retried++;
          retryAfterMs = Math.max(retryAfterMs, outcome.retryAfterMs ?? 0);
        }
      }
      await ledger.acknowledge(sink.name, taken);
      acknowledged += taken.length;
      // The sink asked to wait, or failed: the rest of this run's events wait with it.
      if (retried > 0) break;
    }
    const run: ExportRun = { sink: sink.name, acknowledged, retried, setAside };
    if (retried === 0) {
      failures.delete(sink.name);
      backoffUntil.delete(sink.name);
      return run;
    }
    const attempts = (failures.get(sink.name) ?? 0) + 1;
    failures.set(sink.name, attempts);
    const wait = Math.max(retryAfterMs, exportBackoff(attempts, options.backoff, options.random));
    const until = clock.now() + wait;
    backoffUntil.set(sink.name, until);
    return { ...run, backoffUntil: until };
  };

  return {
    async run() {
      const held = await ledger.lease(leaseName, options.holder, options.leaseTtlMs, clock.now());
      if (!held) return false;
      const runs: ExportRun[] = [];
      for (const sink of sinks) {
        const run = await runSink(sink);
        options.onRun?.(run);
        runs.push(run);
      }
      return runs;
    },
    lastErrors: () => errors,
    release: () => ledger.releaseLease(leaseName, options.holder),
  };
}

/** Why a window cannot go to the sink as it is (undefined: it can). */
function asideReason(
  sink: MeterSink,
  window: { windowStart: number; pending?: { preparedAt: number } },
  now: number,
): { reason: string; detail: string } | undefined {
  if (sink.maxAgeMs !== undefined && window.windowStart < now - sink.maxAgeMs) {
    return {
      reason: "too-late",
      detail: `the window started more than ${Math.round(sink.maxAgeMs / 86_400_000)} days ago, older than ${sink.name} takes`,
    };
  }
  if (
    window.pending !== undefined &&
    sink.dedupWindowMs !== undefined &&
    window.pending.preparedAt < now - sink.dedupWindowMs
  ) {
    return {
      reason: "unconfirmed",
      detail: `sent at ${new Date(window.pending.preparedAt).toISOString()} without an acknowledgement, and ${sink.name} forgets identifiers after ${Math.round(sink.dedupWindowMs / 3_600_000)} h: sending it again could bill it twice; check it with \`keyward usage reconcile\``,
    };
  }
  return undefined;
}

function windowOf(window: LedgerWindow): LedgerWindow {
  return { ownerId: window.ownerId, meter: window.meter, windowStart: window.windowStart };
}

/** A sink that throws (a bug, or a client that does) is an uncertain outcome for the whole batch. */
async function sendSafely(sink: MeterSink, batch: readonly MeterEvent[]): Promise<SendOutcome[]> {
  try {
    const outcomes = await sink.send(batch);
    if (outcomes.length !== batch.length)
      throw new Error("a sink answered the wrong number of outcomes");
    return outcomes;
  } catch (cause) {
    const error = cause instanceof Error ? cause.message : String(cause);
    return batch.map(() => ({ kind: "uncertain", error }));
  }
}
