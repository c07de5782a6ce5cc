import type { LedgerAddition } from "./usage-ledger.js";

/** Meter names already checked (bounded): most requests name `requests`, checked once. */
const validMeters = new Set<string>(["requests", "credits"]);

/** The longest owner id or meter name the ledger keeps (a store column's bound). */
export const maxLedgerName = 256;

/**
 * Throws a `TypeError` naming the field for an addition no ledger may keep: every ledger checks
 * before it writes, so a bad addition changes nothing.
 */
export function checkAdditions(additions: readonly LedgerAddition[]): void {
  for (const addition of additions) {
    const { ownerId, meter, windowStart, amount } = addition;
    // The common case first, in a few comparisons: a meter seen before, a whole amount.
    if (
      validMeters.has(meter) &&
      typeof ownerId === "string" &&
      ownerId.length > 0 &&
      ownerId.length <= maxLedgerName &&
      Number.isSafeInteger(windowStart) &&
      windowStart >= 0 &&
      Number.isSafeInteger(amount) &&
      amount > 0
    ) {
      continue;
    }
    if (typeof ownerId !== "string" || ownerId.length === 0 || ownerId.length > maxLedgerName) {
      throw new TypeError(`Keyward metering: an owner id must be 1–${maxLedgerName} characters`);
    }
    if (typeof meter !== "string" || !/^[a-z][a-z0-9_]{0,99}$/.test(meter)) {
      throw new TypeError(
        `Keyward metering: a meter name is lowercase letters, digits and "_", starting with a letter (up to 100), got ${JSON.stringify(String(meter).slice(0, 40))}`,
      );
    }
    if (validMeters.size < 1000) validMeters.add(meter);
    if (!Number.isSafeInteger(windowStart) || windowStart < 0) {
      throw new TypeError("Keyward metering: a window start is epoch milliseconds");
    }
    if (!Number.isSafeInteger(amount) || amount <= 0) {
      throw new TypeError(
        `Keyward metering: an amount is a whole number > 0, got ${String(amount).slice(0, 40)}`,
      );
    }
  }
}
