import { checkQuota } from "../limits/check-limits.js";
import type { QuotaConfig } from "../limits/types.js";
import { type RateLimitConfig, toPolicy } from "../rate-limit/duration.js";
import type { RateLimitPolicy } from "../rate-limit/types.js";

export interface TierConfig {
  /** Per API key (and per user for session requests). */
  rateLimit: RateLimitConfig;
  /** One allowance shared by every key of an owner, beside each key's own. Default: none. */
  ownerRateLimit?: RateLimitConfig;
  /** Requests per owner per UTC calendar day, ISO week (from Monday) or month, across all their keys. Default: none. */
  quota?: QuotaConfig;
}

/** A tier's layers beyond the per-key rate limit, resolved. */
export interface TierLayers {
  ownerPolicy: RateLimitPolicy | undefined;
  quota: QuotaConfig | undefined;
}

/**
 * Tiers as an ordered ladder: the order in which they are configured, lowest first, is their rank.
 * A key may operate at its owner's tier or any tier below it.
 */
export interface TierLadder {
  /** Tier names, lowest first. */
  readonly names: readonly string[];
  readonly lowest: string;
  has(name: string): boolean;
  /** Position on the ladder, 0 for the lowest; -1 for an unknown tier. */
  rank(name: string): number;
  /** Whether a key at `keyTier` may be created by an account at `accountTier`. */
  allows(accountTier: string, keyTier: string): boolean;
  /** The configured tier for an account, or the lowest tier when it is missing or unknown. */
  resolveAccountTier(value: unknown): string;
  /**
   * The tier a key runs at: its own, capped at its owner's current account tier (a downgraded
   * account's keys run at the account's tier), and the lowest tier for a tier that is no longer
   * configured. Always a configured tier, so its policy exists.
   */
  effective(keyTier: string, ownerTier: string | null): string;
  policy(tier: string): RateLimitPolicy;
  /** The owner-level layers of a tier (both undefined when it has none). */
  layers(tier: string): TierLayers;
  /** Whether any tier has an owner-level layer. */
  readonly layered: boolean;
}

/**
 * @example
 * const tiers = createTierLadder({
 *   free: { rateLimit: { limit: 60, window: "1m" } },
 *   pro: { rateLimit: { limit: 600, window: "1m" } },
 * });
 * tiers.allows("free", "pro"); // false
 */
export function createTierLadder(tiers: Record<string, TierConfig>): TierLadder {
  const names = Object.keys(tiers);
  const lowest = names[0];
  if (lowest === undefined) throw new TypeError("Keyward: `tiers` must define at least one tier");
  const ranks = new Map(names.map((name, index) => [name, index]));
  const policies = new Map<string, RateLimitPolicy>();
  const tierLayers = new Map<string, TierLayers>();
  let layered = false;
  for (const name of names) {
    const config = tiers[name];
    if (!config?.rateLimit) throw new TypeError(`Keyward: tier "${name}" needs a \`rateLimit\``);
    try {
      policies.set(name, toPolicy(config.rateLimit));
      const ownerPolicy = config.ownerRateLimit ? toPolicy(config.ownerRateLimit) : undefined;
      const quota = config.quota ? checkQuota(config.quota) : undefined;
      if (ownerPolicy || quota) layered = true;
      tierLayers.set(name, { ownerPolicy, quota });
    } catch (error) {
      throw new TypeError(`Keyward: tier "${name}": ${(error as Error).message}`);
    }
  }
  const rank = (name: string) => ranks.get(name) ?? -1;
  return {
    names,
    lowest,
    has: (name) => ranks.has(name),
    rank,
    allows: (accountTier, keyTier) => rank(keyTier) !== -1 && rank(keyTier) <= rank(accountTier),
    resolveAccountTier: (value) => (typeof value === "string" && ranks.has(value) ? value : lowest),
    effective(keyTier, ownerTier) {
      const keyRank = ranks.get(keyTier);
      if (keyRank === undefined) return lowest;
      if (ownerTier === null || ownerTier === keyTier) return keyTier;
      const ownerRank = ranks.get(ownerTier) ?? 0;
      return ownerRank < keyRank ? (names[ownerRank] as string) : keyTier;
    },
    policy(tier) {
      const policy = policies.get(tier);
      if (!policy) throw new TypeError(`Keyward: unknown tier "${tier}"`);
      return policy;
    },
    layers: (tier) => tierLayers.get(tier) ?? { ownerPolicy: undefined, quota: undefined },
    layered,
  };
}
