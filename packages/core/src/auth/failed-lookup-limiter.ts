/**
 * A budget of key lookups per client address, so that forged keys cannot cost unbounded storage
 * work. The checksum in the key format is public: anyone can mint endless well-formed keys, each
 * distinct one misses every cache, and without a limit each costs a database round trip.
 *
 * A lookup is taken from the address's budget when it starts and given back if it found a key (or
 * the store failed), so what is spent is lookups that found nothing; taking first is what bounds a
 * client that sends many at once, which would otherwise all start before the first one failed.
 * The budget is a GCRA (`rate-limit/gcra.ts`): a burst of `limit`, then one every `window / limit`.
 *
 * It also remembers, for a day, the hashes whose lookup found a key. A forger cannot produce one,
 * so they are looked up even from an address with no budget left: the verification cache holds a
 * record only for its TTL, and without this a valid key used behind the same NAT as a flood would
 * be refused as soon as its cache entry expired.
 */
import { expiringLru } from "../cache/expiring-lru.js";
import type { Clock } from "../clock.js";
import { toPolicy } from "../rate-limit/duration.js";
import { gcra } from "../rate-limit/gcra.js";
import { floorDivide } from "../rate-limit/integer-division.js";
import type { RateLimitDecision, RateLimitPolicy, RateLimitState } from "../rate-limit/types.js";

/** `failedLookups` in `KeywardConfig`. */
export interface FailedLookupsConfig {
  /** Lookups that may find nothing per `window`, per client address: the burst. Default 60. */
  limit?: number;
  /** `"1m"`, `"30s"`, … or milliseconds. Default `"1m"`: with the default limit, one a second. */
  window?: string | number;
  /**
   * Addresses tracked at once; beyond it the least recently seen is forgotten (and starts afresh
   * if it comes back). Each costs about 200 bytes. Default 10,000.
   */
  maxAddresses?: number;
}

export const defaultFailedLookups = {
  limit: 60,
  window: "1m",
  maxAddresses: 10_000,
} as const satisfies Required<FailedLookupsConfig>;

/** How many hashes of found keys are remembered, and for how long after they were last found. */
const knownKeys = { maxEntries: 10_000, ttlMs: 24 * 60 * 60 * 1_000 };

export interface FailedLookupLimiter {
  /** The budget as a GCRA policy, for the rate-limit headers of a refusal. */
  readonly policy: RateLimitPolicy;
  /** Addresses currently tracked; at most `maxAddresses`. */
  readonly size: number;
  /**
   * Takes one lookup from the budget of the address's group (`clientAddressGroup`). Refused when
   * the budget is spent: then `retryAfter` is the wait until one is back, and `reset` the moment it
   * is (not, as in a rested limiter's `reset`, when the whole burst is).
   */
  take(group: string): RateLimitDecision;
  /** Returns a lookup `take` admitted, because it found a key or could not be made. */
  giveBack(group: string): void;
  /** Records that a lookup of this hash found a key (for a day, or until `forget`). */
  rememberFound(secretHash: string): void;
  /** Whether a lookup of this hash found a key within the last day: it is not a forgery. */
  wasFound(secretHash: string): boolean;
  /** Drops a remembered hash whose latest lookup found nothing (rotated away, say). */
  forget(secretHash: string): void;
}

/**
 * Validates `failedLookups` and builds the limiter; a bad value throws a `TypeError` naming it.
 *
 * @example
 * const limiter = failedLookupLimiter({ limit: 60, window: "1m" }, systemClock);
 * const group = clientAddressGroup(clientIp); // IPv6 by /64
 * if (group !== undefined && !limiter.take(group).allowed) refuse(); // 429, before any lookup
 */
export function failedLookupLimiter(
  config: FailedLookupsConfig,
  clock: Clock,
): FailedLookupLimiter {
  const policy = resolvePolicy(config);
  const maxAddresses = config.maxAddresses ?? defaultFailedLookups.maxAddresses;
  if (!Number.isSafeInteger(maxAddresses) || maxAddresses < 1) {
    throw new TypeError(
      `Keyward: \`failedLookups.maxAddresses\` must be a positive integer, got ${String(maxAddresses)}`,
    );
  }
  // Entries expire when the address is fully rested, so a drained budget needs no timer to reset.
  const budgets = expiringLru<RateLimitState>(maxAddresses);
  const found = expiringLru<true>(knownKeys.maxEntries);
  // T = windowMs / limit as q + r / limit ms: the GCRA state counts in 1/limit ms.
  const intervalWhole = floorDivide(policy.windowMs, policy.limit);
  const intervalFraction = policy.windowMs % policy.limit;

  return {
    policy,
    get size() {
      return budgets.size;
    },

    take(group) {
      const now = clock.now();
      const step = gcra(budgets.get(group, now), now, policy);
      if (step.decision.allowed) {
        budgets.set(group, step.state, step.expiresAt);
        return step.decision;
      }
      return { ...step.decision, reset: now + step.decision.retryAfter };
    },

    giveBack(group) {
      const now = clock.now();
      const state = budgets.get(group, now);
      if (state === undefined) return; // forgotten or rested meanwhile: nothing left to return
      // TAT − T, borrowing a whole ms when the fraction would go negative.
      let [tat = now, fraction = 0] = state;
      tat -= intervalWhole;
      fraction -= intervalFraction;
      if (fraction < 0) {
        fraction += policy.limit;
        tat -= 1;
      }
      const restedAt = fraction > 0 ? tat + 1 : tat;
      if (restedAt <= now) budgets.delete(group);
      else budgets.set(group, [tat, fraction], restedAt);
    },

    rememberFound(secretHash) {
      found.set(secretHash, true, clock.now() + knownKeys.ttlMs);
    },

    wasFound(secretHash) {
      return found.get(secretHash, clock.now()) === true;
    },

    forget(secretHash) {
      found.delete(secretHash);
    },
  };
}

function resolvePolicy(config: FailedLookupsConfig): RateLimitPolicy {
  if (typeof config !== "object" || config === null) {
    throw new TypeError(
      "Keyward: `failedLookups` must be { limit?, window?, maxAddresses? } or false (to turn the limit off)",
    );
  }
  try {
    return toPolicy({
      limit: config.limit ?? defaultFailedLookups.limit,
      window: config.window ?? defaultFailedLookups.window,
      algorithm: "gcra",
    });
  } catch (error) {
    throw new TypeError(`Keyward: \`failedLookups\`: ${(error as Error).message}`);
  }
}
