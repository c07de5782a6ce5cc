/**
 * Reserve, then settle. `reserve` is `verify` with `cost` = the hold: the request is checked and
 * every limit layer decided in the store's one atomic step (rate limits, quota, credits, budgets),
 * so the hold is taken all-or-nothing and exactly across instances, and no admitted reservation can
 * make a balance go below zero. The hold is then recorded (`HoldStore`), and what it does not spend
 * goes back when it is settled, released or expires:
 *
 * - `settle(actual)`: spends `actual` (of at most the hold; more is capped at the hold, and the
 *   outcome reports the `overrun`: a hard cap is never passed) and gives back the rest;
 * - `release()`: gives back all of it;
 * - not settled within its TTL: released by itself (`releaseExpired`, on a timer), so a crashed host
 *   loses no customer money and holds no budget forever.
 *
 * A give-back is a step of the same layers with a negative cost, for the layers whose period or
 * grant is still the one the hold was taken in (a budget of a past period is whole again: giving
 * into it would grant what was never spent). Taking the record is atomic (`HoldStore.take`), so
 * each hold is given back at most once, whichever instance settles it or finds it expired.
 *
 * With a store that keeps holds as layers (`HoldStore.layered`, Redis), the hold is a layer of its
 * own instead (`hold-layer.ts`): put in by the reservation's step and taken out by the step that
 * gives the rest back, so reserve and settle are one store round trip each, as `verify` is; the
 * record, sent ahead of the reservation's step, is only how the sweep finds the hold.
 */

import type { VerifyResult } from "../../auth/principal.js";
import type { Clock } from "../../clock.js";
import type { LayeredLimiter } from "../../limits/layered-limiter.js";
import { giveBackLayers } from "./give-back.js";
import { holdLayerBucket } from "./hold-layer.js";
import type { HoldStore, StoredHold } from "./hold-store.js";
import { isLayerHold, type LayerHold, layerHoldSteps } from "./layer-hold-steps.js";

export { giveBackLayers } from "./give-back.js";

/** How a hold ended. */
export type HoldOutcome =
  | {
      done: true;
      /** What the request spent, for good. */
      spent: number;
      /** What went back to the balances. */
      returned: number;
      /** What `settle` was asked beyond the hold (not spent: the hold is the cap). */
      overrun: number;
    }
  | {
      done: false;
      /** Settled, released or expired already (on this instance or another). */
      reason: "gone";
    };

export interface Hold {
  readonly id: string;
  /** What was taken up front. */
  readonly amount: number;
  /** When it is released by itself (epoch ms). */
  readonly expiresAt: number;
  /** Spends `actual` (a whole number ≥ 0; beyond the hold, the hold) and gives back the rest. */
  settle(actual: number): Promise<HoldOutcome>;
  /** Gives back all of it. */
  release(): Promise<HoldOutcome>;
}

/** `verify`'s answer, with the hold when the request was admitted. */
export type ReserveResult =
  | (Extract<VerifyResult, { ok: true }> & { hold: Hold })
  | Extract<VerifyResult, { ok: false }>;

export interface HoldParts {
  store: HoldStore;
  limiter: () => LayeredLimiter | undefined;
  clock: () => Clock;
  ttlMs: number;
  newId(): string;
  /** Told what each settled hold spent (a host meter, billing). */
  onSettled?: (settled: SettledHold) => void;
  report(message: string, cause: unknown): void;
}

export interface SettledHold {
  holdId: string;
  keyId: string;
  /** The key's owner id: whom a meter bills (`keyward.metering.record(ownerId, meter, spent)`). */
  ownerId: string;
  owner: string;
  held: number;
  spent: number;
  at: number;
  /** How it ended: settled by the host, released, or expired after its TTL. */
  how: "settled" | "released" | "expired";
}

/** What a reservation took, to record as a hold: a `StoredHold` before its id and times. */
export type TakenHold = Pick<StoredHold, "keyId" | "ownerId" | "owner" | "amount" | "layers">;

export function checkAmount(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`Keyward: ${what} must be a whole number ≥ 0, got ${String(value)}`);
  }
  return value;
}

export function holdsOf(parts: HoldParts) {
  const limiterOf = (): LayeredLimiter => {
    const limiter = parts.limiter();
    if (!limiter) throw new TypeError("Keyward: budgets need a store that applies layered limits");
    return limiter;
  };
  /** Gives `amount` back to the layers of `hold` still in the period and grant it was taken in. */
  const giveBack = async (hold: StoredHold, amount: number, now: number) => {
    const layers = giveBackLayers(hold, amount, now);
    if (layers.length === 0) return;
    await limiterOf().consume({ owner: hold.owner, layers, now });
  };

  const layerSteps = layerHoldSteps({
    store: parts.store,
    limiter: limiterOf,
    report: parts.report,
  });
  const { background, forgetLater } = layerSteps;
  const takeLayer = layerSteps.take;

  const told = (
    hold: StoredHold,
    actual: number | undefined,
    how: SettledHold["how"],
    now: number,
  ) => {
    const spent = spentOf(hold, actual);
    if (parts.onSettled) {
      try {
        parts.onSettled({
          holdId: hold.id,
          keyId: hold.keyId,
          ownerId: hold.ownerId,
          owner: hold.owner,
          held: hold.amount,
          spent,
          at: now,
          how,
        });
      } catch (error) {
        parts.report("Keyward: budgets' onSettled threw", error);
      }
    }
    const outcome: HoldOutcome = {
      done: true,
      spent,
      returned: hold.amount - spent,
      overrun: actual === undefined ? 0 : actual - spent,
    };
    return outcome;
  };

  /** Ends a hold kept as a layer, spending `actual` (undefined: nothing, released). */
  const endLayer = async (
    hold: LayerHold,
    actual: number | undefined,
    how: SettledHold["how"],
  ): Promise<HoldOutcome> => {
    const now = parts.clock().now();
    if (!(await takeLayer(hold, hold.amount - spentOf(hold, actual), now))) return gone;
    return told(hold, actual, how, now);
  };

  /** Ends the hold `id` spending `actual` (undefined: nothing, released). */
  const end = async (
    id: string,
    actual: number | undefined,
    how: SettledHold["how"],
  ): Promise<HoldOutcome> => {
    const records = parts.store.layered;
    if (records) {
      const record = await records.read(id);
      if (!record) return gone;
      if (isLayerHold(record)) return endLayer(record, actual, how);
    }
    const hold = await parts.store.take(id);
    if (!hold) return gone;
    const now = parts.clock().now();
    // A give-back the store failed (a timeout, a lost connection) is not retried: it may have run
    // all the same, and returning twice would let spending pass the cap. The hold's rest stays
    // spent, and the caller gets the error.
    await giveBack(hold, hold.amount - spentOf(hold, actual), now);
    return told(hold, actual, how, now);
  };

  const settle = async (id: string, actual: number) => {
    checkAmount(actual, "settle's `actual`");
    return end(id, actual, "settled");
  };
  const release = (id: string) => end(id, undefined, "released");

  /** The record of a hold a reservation takes at `now`, with its own layer if kept as one. */
  const open = (taken: TakenHold, now: number, asLayer = false): StoredHold => {
    const { keyId, ownerId, owner, amount, layers } = taken;
    const hold: StoredHold = {
      id: parts.newId(),
      keyId,
      ownerId,
      owner,
      // A key without credits or a budget is limited as any request: nothing is held.
      amount: layers.length > 0 ? amount : 0,
      layers,
      heldAt: now,
      expiresAt: now + parts.ttlMs,
    };
    if (asLayer) hold.ownLayer = holdLayerBucket(hold.id);
    return hold;
  };

  return {
    settle,
    release,
    open,
    /** Records the hold a reservation took at `now`, and answers its handle. */
    async record(taken: TakenHold, now: number): Promise<Hold> {
      const hold = open(taken, now);
      // Nothing was taken from any balance: a hold of nothing needs no record.
      if (hold.layers.length > 0 && hold.amount > 0) {
        try {
          await parts.store.put(hold);
        } catch (error) {
          // Unrecorded, nobody could give it back: give it back now, and fail the reservation.
          await giveBack(hold, hold.amount, now).catch((cause) =>
            parts.report(`Keyward: a hold that could not be recorded was not given back`, cause),
          );
          throw error;
        }
      }
      return handle(hold);
    },
    /**
     * A hold kept as a layer whose reservation was admitted: its handle once its record, sent
     * before the reservation's step, is written. A record that failed leaves a hold nobody could
     * find: it is given back now, and the reservation fails.
     */
    async recorded(hold: LayerHold, written: Promise<void>): Promise<Hold> {
      try {
        await written;
      } catch (error) {
        await takeLayer(hold, hold.amount, parts.clock().now()).catch((cause) =>
          parts.report(`Keyward: a hold that could not be recorded was not given back`, cause),
        );
        throw error;
      }
      return handle(hold);
    },
    /** A hold kept as a layer whose reservation's step put nothing into it: its record goes. */
    forget(hold: LayerHold, written: Promise<void>) {
      background(
        written.then(
          () => forgetLater(hold),
          () => {},
        ),
      );
    },
    /**
     * A hold kept as a layer whose reservation was refused after its step: given back now if the
     * step put anything into it (else the take is refused), in the background, once its record
     * was sent. A give-back that fails leaves the record to the sweep.
     */
    abandon(hold: LayerHold, written: Promise<void>) {
      background(
        written
          .catch(() => {})
          .then(async () => {
            await takeLayer(hold, hold.amount, parts.clock().now());
          })
          .catch((cause) =>
            parts.report("Keyward: a refused reservation's hold was not ended", cause),
          ),
      );
    },
    /** Releases every hold past its TTL; answers how many. */
    async releaseExpired(limit = 1000): Promise<number> {
      const ids = await parts.store.expired(parts.clock().now(), limit);
      let released = 0;
      for (const id of ids) {
        const outcome = await end(id, undefined, "expired");
        if (outcome.done) released++;
      }
      return released;
    },
    /** Waits for what runs in the background (records being removed, refused holds ended). */
    settled: layerSteps.settled,
  };

  function handle(hold: StoredHold): Hold {
    const empty = hold.layers.length === 0 || hold.amount === 0;
    const ending = (actual: number | undefined, how: "settled" | "released") =>
      isLayerHold(hold) ? endLayer(hold, actual, how) : end(hold.id, actual, how);
    let ended: HoldOutcome | undefined;
    const once = (run: () => Promise<HoldOutcome>) => {
      if (ended) return Promise.resolve<HoldOutcome>(gone);
      return run().then((outcome) => {
        ended = outcome;
        return outcome;
      });
    };
    return {
      id: hold.id,
      amount: hold.amount,
      expiresAt: hold.expiresAt,
      async settle(actual) {
        checkAmount(actual, "settle's `actual`");
        if (empty) {
          return once(async () => ({ done: true, spent: 0, returned: 0, overrun: actual }));
        }
        return once(() => ending(actual, "settled"));
      },
      async release() {
        if (empty) return once(async () => ({ done: true, spent: 0, returned: 0, overrun: 0 }));
        return once(() => ending(undefined, "released"));
      },
    };
  }
}

const gone: HoldOutcome = { done: false, reason: "gone" };

/** What a hold ending with `actual` spends: `actual` capped at the hold; released, nothing. */
function spentOf(hold: StoredHold, actual: number | undefined): number {
  return actual === undefined ? 0 : Math.min(actual, hold.amount);
}
