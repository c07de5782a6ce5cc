/**
 * Reconciliation: the ledger's totals for a calendar month (UTC) against what a sink holds, per
 * owner and meter. A difference is either usage not exported yet (the backlog, or adjustments) or a
 * fault worth a look; `keyward usage reconcile` prints them and exits non-zero.
 */
import type { MeterSink } from "./export/meter-sink.js";
import type { UsageLedger } from "./ledger/usage-ledger.js";

export interface ReconcileLine {
  readonly sink: string;
  readonly ownerId: string;
  readonly meter: string;
  readonly ledger: number;
  readonly sinkTotal: number;
}

export interface Reconciliation {
  /** `YYYY-MM`. */
  readonly period: string;
  readonly lines: readonly ReconcileLine[];
  /** The lines whose ledger and sink totals differ. */
  readonly differences: readonly ReconcileLine[];
}

/** [from, to) in epoch ms for `YYYY-MM`; throws a `TypeError` for anything else. */
export function periodRange(period: string): { from: number; to: number } {
  const match = typeof period === "string" ? /^(\d{4})-(0[1-9]|1[0-2])$/.exec(period) : null;
  if (match === null) {
    throw new TypeError(
      `metering: a period is YYYY-MM (a UTC calendar month), got ${JSON.stringify(String(period).slice(0, 20))}`,
    );
  }
  const year = Number(match[1]);
  const month = Number(match[2]) - 1;
  return { from: Date.UTC(year, month, 1), to: Date.UTC(year, month + 1, 1) };
}

export async function reconcile(
  ledger: UsageLedger,
  sinks: readonly MeterSink[],
  period: string,
): Promise<Reconciliation> {
  const { from, to } = periodRange(period);
  const totals = await ledger.totals(from, to);
  const lines: ReconcileLine[] = [];
  for (const sink of sinks) {
    if (sink.totals === undefined) continue;
    const mine = totals.filter((total) => sink.meters.includes(total.meter));
    const owners = [...new Set(mine.map((total) => total.ownerId))].sort();
    const held = await sink.totals(owners, from, to);
    const heldOf = new Map(held.map((one) => [`${one.ownerId}\u0000${one.meter}`, one.total]));
    const ledgerOf = new Map(mine.map((one) => [`${one.ownerId}\u0000${one.meter}`, one.total]));
    const keys = new Set([...heldOf.keys(), ...ledgerOf.keys()]);
    for (const key of [...keys].sort()) {
      const [ownerId, meter] = key.split("\u0000") as [string, string];
      lines.push({
        sink: sink.name,
        ownerId,
        meter,
        ledger: ledgerOf.get(key) ?? 0,
        sinkTotal: heldOf.get(key) ?? 0,
      });
    }
  }
  return {
    period,
    lines,
    differences: lines.filter((line) => line.ledger !== line.sinkTotal),
  };
}
