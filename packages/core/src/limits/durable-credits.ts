/**
 * Credits on a shared store (Redis) with their durable balance in an `AllowanceStore` (PostgreSQL):
 * Redis stays the fast path, one script call per request, and PostgreSQL keeps what a Redis loss
 * (a flush, an eviction, a failover to a replica that missed writes) would otherwise forget.
 *
 * - **Written back**: each admitted request's reply says where its credits stand; the latest state
 *   seen per bucket is kept in this process and saved every `intervalMs` (`saveCredits` keeps the
 *   newest whichever instance writes last, see `isNewerCredits`).
 * - **Seeded**: Redis is asked with `durableCredits`, so a credits state it does not hold is not
 *   started from the grant: the request is answered `unseeded`, the state is loaded from the
 *   durable balance and written to Redis where still missing, and the request is asked again.
 *
 * A loss therefore gives back at most what was spent since the last save (one interval), instead
 * of every key's whole grant.
 */
import { periodicTask } from "../background/periodic-task.js";
import { periodStart } from "./calendar-period.js";
import { startsFromNothing } from "./transient-credits.js";
import type { LayerDecision, LimitLayer } from "./types.js";

/** A credits state: `[grantedAt, balance, refilledAt]`, as `stepLayer` keeps it. */
export type CreditsState = readonly number[];

/**
 * Whether `next` is a later state of a credit bucket than `kept`: a later grant, the same grant in
 * a later refill period, or the same grant and period with a lower balance (within one grant and
 * period a balance only goes down, so the lowest seen is the latest). A missing or malformed kept
 * state is older than any.
 */
export function isNewerCredits(next: CreditsState, kept: CreditsState | undefined): boolean {
  if (kept === undefined || kept.length !== 3) return true;
  if (next[0] !== kept[0]) return next[0]! > kept[0]!;
  if (next[2] !== kept[2]) return next[2]! > kept[2]!;
  return next[1]! < kept[1]!;
}

/**
 * The state a credits layer's decision reports: its balance is `remaining`, and its refill period
 * is the one its `reset` ends (a decision's reset is the end of the period the state is in).
 */
export function creditsStateOf(
  layer: Extract<LimitLayer, { layer: "credits" }>,
  decision: LayerDecision,
): CreditsState {
  const refilledAt = layer.refill ? periodStart(decision.reset - 1, layer.refill.period) : 0;
  return [layer.grantedAt, decision.remaining, refilledAt];
}

export interface CreditCheckpoints {
  /** Notes the credits states an admitted request's decisions report. */
  note(layers: readonly LimitLayer[], decisions: readonly LayerDecision[]): void;
  /** Saves what was noted since the last save; a failed save is kept for the next one. */
  save(): Promise<void>;
  /** Stops the timer and saves what is left. */
  close(): Promise<void>;
}

export function creditCheckpoints(options: {
  save(states: { bucket: string; state: CreditsState }[]): Promise<void>;
  intervalMs: number;
  onError(error: unknown): void;
}): CreditCheckpoints {
  let pending = new Map<string, CreditsState>();

  const keep = (target: Map<string, CreditsState>, bucket: string, state: CreditsState) => {
    if (isNewerCredits(state, target.get(bucket))) target.set(bucket, state);
  };

  // One save at a time, on a timer started on first use (Workers refuse timers set outside a request).
  const saving = periodicTask({
    intervalMs: options.intervalMs,
    onError: options.onError,
    async task() {
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      try {
        await options.save([...batch].map(([bucket, state]) => ({ bucket, state })));
      } catch (error) {
        // Back in for the next save, unless something newer was seen meanwhile.
        for (const [bucket, state] of batch) keep(pending, bucket, state);
        throw error;
      }
    },
  });

  return {
    note(layers, decisions) {
      for (let index = 0; index < layers.length; index++) {
        const layer = layers[index]!;
        if (layer.layer !== "credits" || startsFromNothing(layer)) continue;
        keep(pending, layer.bucket, creditsStateOf(layer, decisions[index]!));
      }
      saving.start();
    },
    save: () => saving.run(),
    async close() {
      saving.close();
      // A save in progress is joined, then what it left is saved.
      await saving.run().catch(() => {});
      await saving.run();
    },
  };
}
