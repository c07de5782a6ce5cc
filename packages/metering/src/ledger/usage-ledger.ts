/**
 * The ledger: what each owner used, per meter and aggregation window, and how much of it each sink
 * has acknowledged. A served request adds to it (`add`); the exporter reads the closed windows a
 * sink has not acknowledged in full (`due`), freezes what it is about to send (`prepare`), sends,
 * and records the sink's acknowledgement (`acknowledge`).
 *
 * Exactly once rests on two rules every implementation keeps:
 * - `prepare` sets a window's pending send only when it has none, and answers the pending send as
 *   stored: whoever sends again after a crash (this instance or another) sends the same value from
 *   the same offset, so under the same identifier, and the sink's deduplication drops the repeat.
 * - `acknowledge` moves a pending send into the acknowledged total only when the pending send is
 *   still the one acknowledged (its `from`): two exporters acknowledging the same send count it once.
 */
import type { Pending } from "@keyward/core/toolkit";

/** One window of one meter of one owner. `windowStart` is epoch ms, a multiple of the window. */
export interface LedgerWindow {
  readonly ownerId: string;
  readonly meter: string;
  readonly windowStart: number;
}

/** An amount added to a window. */
export interface LedgerAddition extends LedgerWindow {
  /** A whole number > 0. */
  readonly amount: number;
  /**
   * Whose id `ownerId` is (default `user`): a ledger beside the limits (`redisLedger`) keeps an
   * owner's usage with the owner's limits, named by both. The others ignore it.
   */
  readonly ownerType?: "user" | "organization";
}

/** A send frozen before it left: the part of the window's total from `from` to `from + value`. */
export interface PendingSend {
  /** What the sink had acknowledged of this window when the send was prepared. */
  readonly from: number;
  readonly value: number;
  /** When it was prepared (epoch ms). */
  readonly preparedAt: number;
}

/** A closed window with usage a sink has not acknowledged. */
export interface DueWindow extends LedgerWindow {
  readonly total: number;
  /** What the sink acknowledged (or what was set aside as an adjustment). */
  readonly acknowledged: number;
  readonly pending?: PendingSend;
}

/** Usage a sink could not take, reported instead of dropped. */
export interface Adjustment extends LedgerWindow {
  readonly sink: string;
  /** The usage not exported. */
  readonly value: number;
  /** `too-late` (past the sink's window for timestamps), `rejected` (the sink refused it), `unconfirmed`. */
  readonly reason: string;
  readonly detail: string;
  readonly at: number;
}

/** A ledger total for reconciliation. */
export interface LedgerTotal {
  readonly ownerId: string;
  readonly meter: string;
  readonly total: number;
}

export interface DueQuery {
  readonly sink: string;
  /** Only these meters (the ones the sink exports). */
  readonly meters: readonly string[];
  /** Windows that started before this (epoch ms): the closed ones. */
  readonly startedBefore: number;
  readonly limit: number;
}

export interface UsageLedger {
  /**
   * Adds to each window, atomically as one. Synchronous when the ledger is in memory, so a verify
   * that needed no I/O needs none for the ledger either.
   */
  add(additions: readonly LedgerAddition[]): Pending<void>;
  /** Closed windows with usage the sink has not acknowledged, oldest first. */
  due(query: DueQuery): Promise<DueWindow[]>;
  /**
   * Freezes each window's send where it has none pending, and answers every window's pending send
   * as stored (the one frozen now, or the one an earlier exporter froze).
   */
  prepare(
    sink: string,
    sends: readonly (LedgerWindow & { from: number; value: number })[],
    now: number,
  ): Promise<(LedgerWindow & PendingSend)[]>;
  /** The sink took these sends: each pending send whose `from` still matches moves to acknowledged. */
  acknowledge(sink: string, sends: readonly (LedgerWindow & { from: number })[]): Promise<void>;
  /**
   * Usage the sink cannot take: recorded as an adjustment and its `value` counted as handled (added
   * to what the sink acknowledged), so the exporter moves on; the window's pending send is cleared.
   */
  setAside(
    sink: string,
    window: LedgerWindow & { value: number; reason: string; detail: string },
    now: number,
  ): Promise<void>;
  adjustments(sink?: string): Promise<Adjustment[]>;
  /**
   * Takes or extends the named lease for `holder` until `now + ttlMs`; false when another holder's
   * lease has not expired. One exporter at a time across instances.
   */
  lease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** Every owner's total per meter over windows that started in [from, to). */
  totals(from: number, to: number): Promise<LedgerTotal[]>;
  /**
   * One owner's total per meter in one window (the open one, for a usage report): a lookup by the
   * owner and the window, never a scan of other owners. Meters with no usage there are absent.
   */
  windowOf(ownerId: string, windowStart: number): Promise<LedgerTotal[]>;
}
