/**
 * Budgets' holds (`budgets({ holds })`) in the `holds` Durable Object of a `cloudflareStore`'s
 * namespace: every isolate and location sees the same holds, and a hold is taken (settled,
 * released or expired) exactly once. The object also releases each hold at its TTL from its own
 * alarm (`object/hold-expiry.ts`), since a Worker's Keyward rarely lives long enough for budgets'
 * sweep timer to fire.
 */
import type { HoldStore, StoredHold } from "@keyward/core/budgets";
import { holdsObjectName } from "../protocol/object-names.js";
import type { CallNamed } from "../protocol/where-held.js";

/** `atTtl`: the `holds` object releases each hold at its `expiresAt` by the system clock. */
export function cloudflareHoldStore(call: CallNamed, prefix: string, atTtl: boolean): HoldStore {
  const object = holdsObjectName(prefix);
  return {
    async put(hold) {
      await call(object, "holds.put", hold, atTtl);
    },
    async take(id) {
      return (await call<StoredHold | null>(object, "holds.take", id)) ?? undefined;
    },
    expired: (now, limit) => call(object, "holds.expired", now, limit),
    heldBy: (keyId) => call(object, "holds.heldBy", keyId),
  };
}
