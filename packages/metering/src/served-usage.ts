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
 */
import type { SpendStep, VerifyResult, VerifyWrapper } from "@keyward/core";
import { isPromise, type Pending } from "@keyward/core/toolkit";
import type { CurrentWindow } from "./current-window.js";
import type { LedgerAddition, UsageLedger } from "./ledger/usage-ledger.js";

export interface ServedUsageTarget {
  ledger: UsageLedger;
  /** The current window (read from the clock as rarely as it can: `current-window.ts`). */
  window: CurrentWindow;
  /** A ledger write failed: the request is served, its usage lost (reported, never thrown). */
  failed(cause: unknown): void;
}

export interface ServedUsage {
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
    const additions: LedgerAddition[] = [{ ownerId, meter: "requests", windowStart, amount: 1 }];
    const credits = creditsByKey.size === 0 ? undefined : creditsByKey.get(principal.keyId);
    if (credits !== undefined) {
      creditsByKey.delete(principal.keyId);
      if (credits > 0) additions.push({ ownerId, meter: "credits", windowStart, amount: credits });
    }
    return additions;
  };

  const record = (result: VerifyResult): Pending<VerifyResult> => {
    if (!result.ok) return result;
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

  return {
    spendStep: {
      name: "metering-credits",
      spent(spend) {
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
