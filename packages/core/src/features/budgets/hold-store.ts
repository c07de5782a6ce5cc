/**
 * Where holds are kept until they are settled, released or expire. What a hold took is already
 * spent from its layers (the hold is the charge of an admitted request, made up front); the record
 * says how much may come back, and from which layers. Every instance must see the same records:
 * memory for one process, Redis or PostgreSQL for several (`@keyward/redis`'s `redisHoldStore`,
 * `@keyward/postgres`'s `postgresHoldStore`).
 *
 * Contract: `take` is atomic: of any number of calls for one id, on any number of instances, one
 * answers the hold and removes it, the others answer undefined. That is what makes a hold settled,
 * released or expired exactly once, whichever comes first.
 */
import type { CreditsLayer } from "./budget-layers.js";

export interface StoredHold {
  /** Random, unguessable: whoever has it can settle the hold. */
  id: string;
  keyId: string;
  /** The key's owner id (a user's or an organization's): whom a meter bills. */
  ownerId: string;
  /** The owner the layers are charged to (`ownerLimitKey`). */
  owner: string;
  /** What was taken up front. */
  amount: number;
  /** The layers it was taken from (credits, budgets), each as charged: `cost` = `amount`. */
  layers: CreditsLayer[];
  /** When it was taken (epoch ms): a layer whose period has ended since gets nothing back. */
  heldAt: number;
  /** When it is released by itself if not settled (epoch ms). */
  expiresAt: number;
  /**
   * The bucket of the hold's own layer, for a hold kept as a layer (`HoldStore.layered`): what it
   * may give back is that layer's balance, taken once by the step that gives it back. Absent: the
   * record is the hold, and `take` ends it.
   */
  ownLayer?: string;
}

/**
 * What a store offers to keep holds as layers (`hold-layer.ts`): beside the limits' own state, so a
 * hold's balance is charged in its reservation's own limit step and taken in its settle's, and a hold
 * costs no store round trip of its own. The record is then only how the sweep finds a hold and what
 * it took from: it may outlive its hold (a refused or given-up reservation, a settle whose answer was
 * lost), which the hold's layer, empty, tells.
 */
export interface HoldLayerRecords {
  /** The record, left in place: the sweep and a settle by id read it before taking the layer. */
  read(id: string): Promise<StoredHold | undefined>;
  /**
   * Removes the record once it is of no use (the hold ended, or its reservation was refused). The
   * hold's layer is the limits' own: the store drops its state once it is empty.
   */
  forget(hold: StoredHold): Promise<void>;
}

export interface HoldStore {
  /** Records a new hold; rejects if one with its id exists (a hold is never silently replaced). */
  put(hold: StoredHold): Promise<void>;
  /** Removes the hold and answers it; undefined when it is gone (settled, released, expired). */
  take(id: string): Promise<StoredHold | undefined>;
  /** Ids of holds whose `expiresAt` ≤ `now`, at most `limit` of them. */
  expired(now: number, limit: number): Promise<string[]>;
  /**
   * What the key's holds still hold, summed: for usage reports. Holds kept as layers are not
   * summed here: their steps count them (`hold-layer.ts`).
   */
  heldBy(keyId: string): Promise<number>;
  /**
   * Present on a store beside the limits' own state (`redisHoldStore`, given the Redis store's
   * client and prefix): holds are then kept as layers, when the limiter applies a request's layers
   * and counters in one script (`LayeredLimiter.appliesIncrements`).
   */
  readonly layered?: HoldLayerRecords;
  /** Stops what the store runs itself, if anything. */
  close?(): Promise<void>;
}

/** Holds in this process: for one instance, and for tests. */
export function memoryHoldStore(): HoldStore {
  const holds = new Map<string, StoredHold>();
  return {
    async put(hold) {
      if (holds.has(hold.id)) throw new Error(`Keyward: hold ${hold.id} exists already`);
      holds.set(hold.id, structuredClone(hold));
    },
    async take(id) {
      const hold = holds.get(id);
      holds.delete(id);
      return hold;
    },
    async expired(now, limit) {
      const ids: string[] = [];
      for (const hold of holds.values()) {
        if (ids.length >= limit) break;
        if (hold.expiresAt <= now) ids.push(hold.id);
      }
      return ids;
    },
    async heldBy(keyId) {
      let sum = 0;
      for (const hold of holds.values()) if (hold.keyId === keyId) sum += hold.amount;
      return sum;
    },
  };
}
