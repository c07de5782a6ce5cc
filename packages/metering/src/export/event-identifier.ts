import { createHash } from "node:crypto";
import type { LedgerWindow } from "../ledger/usage-ledger.js";

/**
 * The identifier of the send of a window's usage from offset `from`: the same on every instance and
 * every retry, so a sink that deduplicates on it (Stripe's `identifier`, a CloudEvent's `id`)
 * drops a repeat. A window that grows after it was exported (a late write) is sent again from the
 * acknowledged offset, under a new identifier, for the difference only. 43 characters, within
 * Stripe's 100.
 */
export function eventIdentifier(window: LedgerWindow, from: number): string {
  const digest = createHash("sha256")
    .update(`${window.ownerId}\u0000${window.meter}\u0000${window.windowStart}\u0000${from}`)
    .digest("base64url")
    .slice(0, 40);
  return `kw_${digest}`;
}
