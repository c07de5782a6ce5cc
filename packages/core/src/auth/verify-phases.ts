/**
 * The phases of `verify`, in the order a request meets them, each a list the listed features
 * append to (in the order the features are listed). The kernel's own step of each phase runs first
 * and is not in the list; the runner (`verify.ts`) holds them, and the synchronous path a request
 * takes when the store answers without I/O.
 *
 * | phase     | a step                        | the kernel's own, first                              |
 * |-----------|-------------------------------|------------------------------------------------------|
 * | `resolve` | token → stored key            | Keyward's format: hash, `peek`, lookup               |
 * | `check`   | refuses a found, live key     | revoked, expired, disabled; the route's environment  |
 * | `charge`  | adds limit layers to the plan | the tier's rate limit, owner allowance, quota, credits |
 * | `spent`   | hears what was spent          | the use counted (route, day)                         |
 * | `around`  | observes every verification   | —                                                    |
 *
 * The first refusal wins: a refused request goes no further (a key refused at `check` is charged
 * nothing). `around` wraps the whole: an observer hears every verification, whichever way it came
 * in, and may watch a decision, never change one.
 */
import type { ChargeStep } from "./charge-steps.js";
import type { KeyCheck } from "./key-checks.js";
import type { KeyResolver } from "./key-resolvers.js";
import type { SpendStep } from "./spend-steps.js";
import type { VerifyWrapper } from "./verify-wrappers.js";

export interface VerifyPhases {
  /** Tokens that are not Keyward keys: the first resolver that accepts one resolves it. */
  readonly resolve: readonly KeyResolver[];
  /** Checks of a found, live key before any limit is charged; the first refusal wins. */
  readonly check: readonly KeyCheck[];
  /** Layers added to the key's own limit plan, each step handed the plan so far. */
  readonly charge: readonly ChargeStep[];
  /** After a request was admitted and charged: the address a use records, what it spent. */
  readonly spent: readonly SpendStep[];
  /** Observers around every verification, the first listed outermost. */
  readonly around: readonly VerifyWrapper[];
}

/** No step in any phase: `verify` as the kernel alone makes it. */
export const noVerifyPhases: VerifyPhases = Object.freeze({
  resolve: [],
  check: [],
  charge: [],
  spent: [],
  around: [],
});

/** The features' phases as one: each phase's lists joined in the order given. */
export function mergeVerifyPhases(parts: readonly Partial<VerifyPhases>[]): VerifyPhases {
  return {
    resolve: parts.flatMap((part) => part.resolve ?? []),
    check: parts.flatMap((part) => part.check ?? []),
    charge: parts.flatMap((part) => part.charge ?? []),
    spent: parts.flatMap((part) => part.spent ?? []),
    around: parts.flatMap((part) => part.around ?? []),
  };
}
