/**
 * `verify`'s named point "spent": after every limit layer admitted a request that was charged to
 * layers beyond the key's own rate limit (an owner's allowance, a quota, credits), each step is told
 * what the request spent, in the order the features are listed. A step must not block the request:
 * it is synchronous and returns nothing, and anything it writes it writes without being awaited,
 * reporting its own failures (the events feature's `quota.threshold` and `credits.exhausted` are one).
 */
import type { EventRecorder } from "../event-model/event-recorder.js";
import type { LayerDecision, LimitLayer } from "../limits/types.js";
import type { RandomSource } from "../random.js";
import type { StoredKey } from "../storage/key-store.js";

export interface SpendStep {
  /** What it does, for a reader of the list: `"usage-events"`. */
  readonly name: string;
  /**
   * @param owner the owner the layers are charged to (`ownerLimitKey(key)`)
   * @param decisions each layer's answer, in the order of `layers`
   */
  spent(
    key: StoredKey,
    owner: string,
    layers: readonly LimitLayer[],
    decisions: readonly LayerDecision[],
    now: number,
  ): void;
}

/** What a spend step is built with: the kernel as it stands once built. */
export interface SpendKernel {
  /** The events written with key changes; undefined without `events()`. */
  events: EventRecorder | undefined;
  random: RandomSource;
  reportFailure(message: string, cause: unknown): void;
}

/** A spend step, built once the kernel is (a feature fills `extends.spendSteps` with these). */
export type SpendStepFactory = (kernel: SpendKernel) => SpendStep;
