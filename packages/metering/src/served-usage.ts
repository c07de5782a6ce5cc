/**
 * What a served request adds to the ledger, heard at two of `verify`'s phases:
 * - `spent` is told what each admitted request was charged; the credits layer's cost is what the
 *   request spent in credits (a request refused for its scopes is charged no credits layer, so it
 *   spends none). Kept per key until the verification ends.
 * - `around` sees the verification's outcome: a request admitted with an API key (the scope check
 *   passed) is served; it adds one request, and the credits its key spent, to the owner's current
 *   window, and the verification returns only once the ledger holds them. A refused request (401,
 *   403, 429) and a failed one (the store threw) add nothing.
 *
 * The credits of one key are summed while its verifications are in flight and taken by the next
 * one that ends served: concurrent requests of a key may swap whose write carries them, never
 * change their sum.
 *
 * Riding (a `redisLedger` beside Redis limits that apply counter increments): the phase "charge"
 * adds the request's usage to its plan instead, one request and the credits it is charged, as
 * counter increments the limits' own script adds only when the request is admitted and not refused
 * for its scopes, which is exactly when it is served. Nothing is then written after the charge.
 */
import type {
  ChargeStep,
  CounterIncrement,
  KeyLimitPlan,
  SpendStep,
  VerifyResult,
  VerifyWrapper,
} from "@keyward/core";
import { isPromise, type Pending } from "@keyward/core/toolkit";
import type { CurrentWindow } from "./current-window.js";
import type { RidingLedger } from "./ledger/redis-ledger.js";
import type { LedgerAddition, UsageLedger } from "./ledger/usage-ledger.js";

export interface ServedUsageTarget {
  ledger: UsageLedger;
  /** The current window (read from the clock as rarely as it can: `current-window.ts`). */
  window: CurrentWindow;
  /** A ledger write failed: the request is served, its usage lost (reported, never thrown). */
  failed(cause: unknown): void;
  /** Set when the usage rides the limits' script (see above). */
  riding?: RidingLedger;
}

export interface ServedUsage {
  chargeStep: ChargeStep;
  spendStep: SpendStep;
  wrapper: VerifyWrapper;
  /** Set by the feature's `install`, before any verification. */
  attach(target: ServedUsageTarget): void;
}

export function servedUsage(): ServedUsage {
  let target: ServedUsageTarget | undefined;
  const creditsByKey = new Map<string, number>();

  const additionsOf = (result: VerifyResult & { ok: true }): LedgerAddition[] | undefined => {
    const { principal } = result;
    if (principal.kind !== "key" || target === undefined) return undefined;
    const windowStart = target.window.start();
    const ownerId = principal.owner.id;
    const ownerType = principal.owner.type;
    const additions: LedgerAddition[] = [
      { ownerId, ownerType, meter: "requests", windowStart, amount: 1 },
    ];
    const credits = creditsByKey.size === 0 ? undefined : creditsByKey.get(principal.keyId);
    if (credits !== undefined) {
      creditsByKey.delete(principal.keyId);
      if (credits > 0) {
        additions.push({ ownerId, ownerType, meter: "credits", windowStart, amount: credits });
      }
    }
    return additions;
  };

  const record = (result: VerifyResult): Pending<VerifyResult> => {
    if (!result.ok) return result;
    // Counted in the charge already.
    if (target?.riding !== undefined && result.principal.kind === "key") return result;
    const additions = additionsOf(result);
    if (additions === undefined) return result;
    const ledger = target!.ledger;
    try {
      const written = ledger.add(additions);
      if (!isPromise(written)) return result;
      return written.then(
        () => result,
        (cause: unknown) => {
          target!.failed(cause);
          return result;
        },
      );
    } catch (cause) {
      target!.failed(cause);
      return result;
    }
  };

  // The plan with the usage riding it, per plan object and window: the same plan out for the same
  // plan in (stores cache what they derive from it by identity), a new one each window.
  const ridden = new WeakMap<
    KeyLimitPlan,
    { windowStart: number; credits: number; plan: KeyLimitPlan }
  >();
  const ride = (plan: KeyLimitPlan, riding: RidingLedger, cost: number): KeyLimitPlan => {
    const windowStart = target!.window.start();
    let credits = 0;
    for (const layer of plan.layers ?? []) if (layer.layer === "credits") credits += cost;
    const cached = ridden.get(plan);
    if (cached?.windowStart === windowStart && cached.credits === credits) return cached.plan;
    const usage = riding.incrementsFor(windowStart, credits);
    const increments: CounterIncrement[] = plan.increments ? [...plan.increments, ...usage] : usage;
    const out = { ...plan, increments };
    ridden.set(plan, { windowStart, credits, plan: out });
    return out;
  };

  return {
    chargeStep: {
      name: "metering-ledger",
      plan(plan, request) {
        const riding = target?.riding;
        return riding === undefined ? plan : ride(plan, riding, request.cost);
      },
    },
    spendStep: {
      name: "metering-credits",
      spent(spend) {
        if (target?.riding !== undefined) return;
        for (const layer of spend.layers) {
          if (layer.layer !== "credits" || layer.cost === 0) continue;
          const keyId = spend.key.id;
          creditsByKey.set(keyId, (creditsByKey.get(keyId) ?? 0) + layer.cost);
        }
      },
    },
    wrapper: (verify) => (authorization, options) => {
      const result = verify(authorization, options);
      return isPromise(result) ? result.then(record) : record(result);
    },
    attach(attached) {
      target = attached;
    },
  };
}
