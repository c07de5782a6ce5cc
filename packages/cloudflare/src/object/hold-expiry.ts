/**
 * Holds released at their TTL by the `holds` object's own alarm. Budgets' sweep
 * (`releaseExpired`, on a timer) needs a Keyward that lives on between requests, which a Worker's
 * rarely does; the object wakes at the earliest hold's `expiresAt` instead, takes each hold due
 * (atomically: a settle racing it from an isolate gets it or not, never both) and gives it back to
 * the limit object it was charged in, by budgets' own rule (`giveBackLayers`). A Keyward's sweep
 * still works beside it: whichever takes a hold first releases it.
 *
 * A give-back that fails (its limit object restarting) is not retried, as budgets' own isn't: it
 * may have been applied all the same, and giving twice would let spending pass a cap. It is logged.
 * A hold released here is not heard by an instance's `onSettled` (it spent nothing: no meter bills it).
 */
import { giveBackLayers, type StoredHold } from "@keyward/core/budgets";
import { callObject, type ObjectNamespace } from "../protocol/object-call.js";
import { callWhereHeld } from "../protocol/where-held.js";
import type { DurableObjectStorage } from "./durable-object-state.js";
import type { holdTable } from "./hold-table.js";

/** Holds released per alarm run; with more due, the alarm fires again at once. */
const releaseBatch = 100;

export function holdExpiry(holds: ReturnType<typeof holdTable>, storage: DurableObjectStorage) {
  return {
    /** Sets the alarm no later than the next hold's expiry (after a hold was put, or released). */
    async schedule(): Promise<void> {
      const next = holds.nextExpiry();
      if (next === null) return;
      const current = await storage.getAlarm();
      if (current === null || current > next) await storage.setAlarm(next);
    },

    /** Releases up to a batch of the holds due at `now`; answers how many. */
    async release(namespace: ObjectNamespace, prefix: string, now: number): Promise<number> {
      const call = <T>(object: string, method: string, ...args: unknown[]) =>
        callObject<T>(namespace.get(namespace.idFromName(object) as never), method, args, prefix);
      let released = 0;
      for (const id of holds.expired(now, releaseBatch)) {
        const hold: StoredHold | null = storage.transactionSync(() => holds.take(id));
        if (hold === null) continue;
        released += 1;
        const layers = giveBackLayers(hold, hold.amount, now);
        if (layers.length === 0) continue;
        try {
          await callWhereHeld(
            call,
            { prefix, owner: hold.owner, keyId: hold.keyId },
            "limits.giveBack",
            layers,
            now,
          );
        } catch (error) {
          console.error(`keyward: hold ${hold.id} expired but could not be given back`, error);
        }
      }
      return released;
    },
  };
}
