/**
 * The ledger in this process's memory: for tests, and for one instance that may lose its usage on a
 * restart. Every method answers from plain maps; `add` is synchronous.
 */

import { checkAdditions } from "./check-additions.js";
import type {
  Adjustment,
  DueQuery,
  DueWindow,
  LedgerAddition,
  LedgerTotal,
  LedgerWindow,
  PendingSend,
  UsageLedger,
} from "./usage-ledger.js";

interface WindowRow extends LedgerWindow {
  total: number;
  /** Per sink: acknowledged so far, and the send pending. */
  sinks: Map<string, { acknowledged: number; pending?: PendingSend }>;
}

export function memoryLedger(): UsageLedger {
  const rows = new Map<string, WindowRow>();
  /** The same rows by window, owner and meter: how `add` finds one. */
  const totals = new Map<number, Map<string, Map<string, WindowRow>>>();
  // The window most additions go to, looked up once per window rather than per request.
  let lastWindow = -1;
  let lastByOwner: Map<string, Map<string, WindowRow>> | undefined;
  let lastRow: WindowRow | undefined;
  const adjustments: Adjustment[] = [];
  const leases = new Map<string, { holder: string; until: number }>();

  const idOf = (window: LedgerWindow) =>
    `${window.ownerId}\u0000${window.meter}\u0000${window.windowStart}`;
  const sinkState = (row: WindowRow, sink: string) => {
    let state = row.sinks.get(sink);
    if (state === undefined) {
      state = { acknowledged: 0 };
      row.sinks.set(sink, state);
    }
    return state;
  };

  return {
    add(additions: readonly LedgerAddition[]) {
      checkAdditions(additions);
      for (const addition of additions) {
        // The row the last addition went to: a run of one owner's requests finds it without a
        // lookup (the strings compared are the ones the requests share, so by reference).
        if (
          lastRow !== undefined &&
          addition.ownerId === lastRow.ownerId &&
          addition.meter === lastRow.meter &&
          addition.windowStart === lastRow.windowStart
        ) {
          lastRow.total += addition.amount;
          continue;
        }
        // Nested maps, not one concatenated key: the owner's and meter's strings are the ones the
        // request already holds, whose hashes V8 has computed (this is verify's hot path).
        let byOwner =
          addition.windowStart === lastWindow ? lastByOwner : totals.get(addition.windowStart);
        if (byOwner === undefined) {
          byOwner = new Map();
          totals.set(addition.windowStart, byOwner);
        }
        lastWindow = addition.windowStart;
        lastByOwner = byOwner;
        let byMeter = byOwner.get(addition.ownerId);
        if (byMeter === undefined) {
          byMeter = new Map();
          byOwner.set(addition.ownerId, byMeter);
        }
        const row = byMeter.get(addition.meter);
        lastRow = row;
        if (row === undefined) {
          const { ownerId, meter, windowStart, amount } = addition;
          const created: WindowRow = {
            ownerId,
            meter,
            windowStart,
            total: amount,
            sinks: new Map(),
          };
          byMeter.set(meter, created);
          rows.set(idOf(addition), created);
          lastRow = created;
        } else row.total += addition.amount;
      }
    },
    async due({ sink, meters, startedBefore, limit }: DueQuery) {
      const due: DueWindow[] = [];
      for (const row of rows.values()) {
        if (row.windowStart >= startedBefore || !meters.includes(row.meter)) continue;
        const state = row.sinks.get(sink) ?? { acknowledged: 0 };
        if (state.acknowledged >= row.total && state.pending === undefined) continue;
        const { ownerId, meter, windowStart, total } = row;
        due.push({
          ownerId,
          meter,
          windowStart,
          total,
          acknowledged: state.acknowledged,
          ...(state.pending ? { pending: state.pending } : {}),
        });
      }
      due.sort((a, b) => a.windowStart - b.windowStart);
      return due.slice(0, limit);
    },
    async prepare(sink, sends, now) {
      return sends.flatMap((send) => {
        const row = rows.get(idOf(send));
        if (row === undefined) return [];
        const state = sinkState(row, sink);
        // Frozen only where nothing is pending and the offset is still the acknowledged one.
        if (state.pending === undefined && state.acknowledged === send.from) {
          state.pending = { from: send.from, value: send.value, preparedAt: now };
        }
        if (state.pending === undefined) return [];
        const { ownerId, meter, windowStart } = row;
        return [{ ownerId, meter, windowStart, ...state.pending }];
      });
    },
    async acknowledge(sink, sends) {
      for (const send of sends) {
        const row = rows.get(idOf(send));
        const state = row?.sinks.get(sink);
        if (state?.pending === undefined || state.pending.from !== send.from) continue;
        state.acknowledged = state.pending.from + state.pending.value;
        delete state.pending;
      }
    },
    async setAside(sink, window, now) {
      const row = rows.get(idOf(window));
      if (row === undefined) return;
      const state = sinkState(row, sink);
      const { ownerId, meter, windowStart, value, reason, detail } = window;
      adjustments.push({ sink, ownerId, meter, windowStart, value, reason, detail, at: now });
      state.acknowledged += value;
      delete state.pending;
    },
    async adjustments(sink) {
      return adjustments.filter((adjustment) => sink === undefined || adjustment.sink === sink);
    },
    async lease(name, holder, ttlMs, now) {
      const current = leases.get(name);
      if (current !== undefined && current.holder !== holder && current.until > now) return false;
      leases.set(name, { holder, until: now + ttlMs });
      return true;
    },
    async releaseLease(name, holder) {
      if (leases.get(name)?.holder === holder) leases.delete(name);
    },
    async totals(from, to) {
      const sums = new Map<string, LedgerTotal>();
      for (const row of rows.values()) {
        if (row.windowStart < from || row.windowStart >= to) continue;
        const id = `${row.ownerId}\u0000${row.meter}`;
        const sofar = sums.get(id)?.total ?? 0;
        sums.set(id, { ownerId: row.ownerId, meter: row.meter, total: sofar + row.total });
      }
      return [...sums.values()];
    },
    async windowOf(ownerId, windowStart) {
      const byMeter = totals.get(windowStart)?.get(ownerId);
      if (byMeter === undefined) return [];
      return [...byMeter.values()].map(({ meter, total }) => ({ ownerId, meter, total }));
    },
  };
}
