/**
 * Ledger writes of concurrent requests, grouped: the additions made while the event loop runs one
 * round of I/O callbacks (until `setImmediate`) are summed per window and written by one statement,
 * and each request's `add` resolves when that statement has committed (or rejects with it). With
 * 32 requests in flight that is one statement instead of 32, and one row lock taken once per
 * window instead of 32 times in a row: every served request of an owner adds to the same row.
 *
 * A batch holds at most `maxRows` distinct windows; more start the next batch, written at the same
 * turn. A request alone is written at the next turn, as before, with no timer.
 */
import type { LedgerAddition } from "./usage-ledger.js";

interface Batch {
  rows: Map<string, { ownerId: string; meter: string; windowStart: number; amount: number }>;
  waiters: { resolve(): void; reject(cause: unknown): void }[];
}

export interface AdditionBatcher {
  add(additions: readonly LedgerAddition[]): Promise<void>;
}

export function additionBatcher(
  write: (rows: readonly LedgerAddition[]) => Promise<void>,
  maxRows = 500,
): AdditionBatcher {
  let open: Batch | undefined;

  const flush = (batch: Batch) => {
    if (open === batch) open = undefined;
    write([...batch.rows.values()]).then(
      () => {
        for (const waiter of batch.waiters) waiter.resolve();
      },
      (cause: unknown) => {
        for (const waiter of batch.waiters) waiter.reject(cause);
      },
    );
  };

  return {
    add(additions) {
      if (open === undefined || open.rows.size + additions.length > maxRows) {
        const batch: Batch = { rows: new Map(), waiters: [] };
        open = batch;
        setImmediate(() => flush(batch));
      }
      const batch = open;
      for (const { ownerId, meter, windowStart, amount } of additions) {
        const id = `${ownerId}\u0000${meter}\u0000${windowStart}`;
        const row = batch.rows.get(id);
        if (row === undefined) batch.rows.set(id, { ownerId, meter, windowStart, amount });
        else row.amount += amount;
      }
      return new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    },
  };
}
