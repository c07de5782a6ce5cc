/**
 * Counter increments a feature's charge step adds to a request's limit charge (`KeyLimitPlan.increments`),
 * applied by the store in the same atomic step as the layers, and only when every layer admitted the
 * request: a refused request (or one refused for its scopes, which spends no quota or credits either)
 * increments nothing. A feature's own count then costs no store round trip of its own: metering's
 * ledger (`redisLedger`, requests and credits per owner per window) and budgets' holds ride it.
 *
 * A store says it can (`RateLimitStore.appliesIncrements`, `LayeredLimiter.appliesIncrements`); a
 * store that cannot (rate limits in memory beside quotas in PostgreSQL, where the charge is not one
 * step) leaves it out, and a feature writes its count its own way instead.
 */

/** One counter to add to: field `field` of the owner's counter `counter`, by `by`. */
export interface CounterIncrement {
  /**
   * The counter's name, kept with the owner's limit state: on Redis the hash
   * `<prefix>counter:{<owner>}:<counter>`, in the owner's slot, so a cluster runs it in the same script.
   * Letters, digits and `_ - . :` only.
   */
  readonly counter: string;
  /** Letters, digits and `_ - . :` only. */
  readonly field: string;
  /** A whole number (negative takes back). */
  readonly by: number;
  /** When the counter may be dropped (epoch ms); absent: kept. Set each time it is added to. */
  readonly expireAt?: number;
}

const namePattern = /^[A-Za-z0-9_.:-]{1,200}$/;

/** Why `increments` cannot be applied, or null: checked once per plan, not per request. */
export function counterIncrementsProblem(increments: readonly CounterIncrement[]): string | null {
  for (const { counter, field, by, expireAt } of increments) {
    if (!namePattern.test(counter)) return `counter ${JSON.stringify(counter)} is not a plain name`;
    if (!namePattern.test(field)) return `field ${JSON.stringify(field)} is not a plain name`;
    if (!Number.isSafeInteger(by)) return `\`by\` must be a whole number, got ${by}`;
    if (expireAt !== undefined && !Number.isSafeInteger(expireAt)) {
      return `\`expireAt\` must be epoch ms, got ${expireAt}`;
    }
  }
  return null;
}
