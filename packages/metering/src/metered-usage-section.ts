/**
 * `metering` on a key's usage report (`GET {basePath}/{key_id}/usage`): what the ledger counted
 * for the key's owner, per meter, in the window still open (the one being filled, not exported
 * yet): served requests, credits spent, a host's own meters. The ledger is per owner, so these are
 * the owner's counts across all their keys, as they will be billed. One lookup of the owner's rows
 * of that window (`UsageLedger.windowOf`).
 */
import type { UsageSection } from "@keyward/core";
import type { UsageLedger } from "./ledger/usage-ledger.js";

/** The `metering` property of a usage report. A type, not an interface, so it is a JSON value. */
export type MeteredUsageSection = {
  /** The open window: ISO 8601, its first instant and the next window's. */
  windowStart: string;
  windowEnd: string;
  /** Per meter, what the owner used in it so far (meters with no usage are absent). */
  meters: { [meter: string]: number };
};

const schema = {
  type: "object",
  properties: {
    windowStart: { type: "string", format: "date-time" },
    windowEnd: { type: "string", format: "date-time" },
    meters: {
      type: "object",
      additionalProperties: { type: "integer", minimum: 0 },
      description:
        "Per meter (`requests`, `credits`, the host's own), what the owner used in the window so far",
    },
  },
  required: ["windowStart", "windowEnd", "meters"],
  description:
    "The metering ledger's counts for the key's owner (all their keys) in the window still open, as they will be billed",
};

export function meteredUsageSection(ledger: () => UsageLedger, windowMs: number): UsageSection {
  return {
    name: "metering",
    schema,
    async read({ key, now }) {
      const windowStart = now - (now % windowMs);
      const totals = await ledger().windowOf(key.ownerId, windowStart);
      const meters: { [meter: string]: number } = {};
      for (const { meter, total } of totals) meters[meter] = total;
      const section: MeteredUsageSection = {
        windowStart: new Date(windowStart).toISOString(),
        windowEnd: new Date(windowStart + windowMs).toISOString(),
        meters,
      };
      return section;
    },
  };
}
