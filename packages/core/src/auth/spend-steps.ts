/**
 * `verify`'s phase "spent": what follows a request that was admitted and charged. A step is told
 * what a request spent once every limit layer admitted it, when it was charged to layers beyond the
 * key's own rate limit (an owner's allowance, a quota, credits), in the order the features are
 * listed. The events feature's `quota.threshold` and `credits.exhausted` are one. (What a use
 * writes beside its count is a key field's, `KeyField.fromUse`.)
 *
 * A step must not block the request: it is synchronous and returns nothing, and anything it writes
 * it writes without being awaited, reporting its own failures through `kit.reportFailure`.
 */
import type { EventRecorder } from "../event-model/event-recorder.js";
import type { LayerDecision, LimitLayer } from "../limits/types.js";
import type { RandomSource } from "../random.js";
import type { StoredKey } from "../storage/key-store.js";

export interface SpendStep {
  /** What it does, for a reader of the list: `"usage-events"`. */
  readonly name: string;
  /** What an admitted request spent, with the kernel's parts a step writes with. */
  spent(spend: Spend, kit: SpendKit): void;
}

/** What one admitted request spent. */
export interface Spend {
  readonly key: StoredKey;
  /** The owner the layers are charged to (`ownerLimitKey(key)`). */
  readonly owner: string;
  readonly layers: readonly LimitLayer[];
  /** Each layer's answer, in the order of `layers`. */
  readonly decisions: readonly LayerDecision[];
  /** When it was decided, epoch ms. */
  readonly now: number;
}

/** What a spend step writes with: the kernel as it stands once built. */
export interface SpendKit {
  /** The events written with key changes; undefined without `events()`. */
  events: EventRecorder | undefined;
  random: RandomSource;
  reportFailure(message: string, cause: unknown): void;
}
