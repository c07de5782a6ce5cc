/**
 * The store's lookup of a key by its hash, once `peek` found nothing, within the client address's
 * budget for unknown keys. What the store can answer without I/O (`peek`: the cache's entries, or
 * anything a memory store holds) costs nothing and is never limited, so a known key from a refused
 * address still passes. A lookup that finds nothing spends one of the address's lookups
 * (`failed-lookup-limiter.ts`), and an address with none left is refused before storage, unless
 * the hash found a key lately. Only with a `clientIp`, so that `verify` without one reads the store
 * exactly as it always has.
 */
import type { KeywardContext } from "../keyward/context.js";
import type { StoredKey } from "../storage/key-store.js";
import { clientAddressGroup } from "./client-address.js";
import type { FailedLookupLimiter } from "./failed-lookup-limiter.js";
import type { Pending } from "./pending-verify.js";
import type { VerifyOptions, VerifyResult } from "./principal.js";
import { tooManyFailedLookups } from "./verify-refusals.js";

/** The key stored under a hash (null: none), or the client address's refusal. */
export type KeyLookup = (
  secretHash: string,
  options: VerifyOptions,
) => Pending<StoredKey | null | VerifyResult>;

export function keyLookup(
  ctx: Pick<KeywardContext, "keys" | "failedLookups" | "clock" | "ietfRateLimitHeaders">,
): KeyLookup {
  const limiter = ctx.failedLookups;
  const find = (secretHash: string) => ctx.keys.findByHash(secretHash);

  const lookUpLimited = async (
    limiter: FailedLookupLimiter,
    secretHash: string,
    clientIp: string,
  ): Promise<StoredKey | null | VerifyResult> => {
    const group = clientAddressGroup(clientIp);
    if (group === undefined) return find(secretHash);
    const allowance = limiter.take(group);
    if (!allowance.allowed) {
      // A hash that found a key lately is no forgery: look it up anyway, outside the allowance.
      if (!limiter.wasFound(secretHash)) {
        const now = ctx.clock.now();
        return tooManyFailedLookups(allowance, limiter.policy, {
          now,
          ietf: ctx.ietfRateLimitHeaders,
        });
      }
      const key = await find(secretHash);
      if (key === null) limiter.forget(secretHash);
      else limiter.rememberFound(secretHash);
      return key;
    }
    let key: StoredKey | null;
    try {
      key = await find(secretHash);
    } catch (error) {
      // A store that failed says nothing about the key; the client is not charged for it.
      limiter.giveBack(group);
      throw error;
    }
    if (key !== null) {
      limiter.giveBack(group);
      limiter.rememberFound(secretHash);
    }
    return key;
  };

  return (secretHash, options) =>
    limiter && options.clientIp
      ? lookUpLimited(limiter, secretHash, options.clientIp)
      : find(secretHash);
}
