/**
 * Which layers a key's request passes through: its tier's (per key at the key's tier, the owner's
 * shared allowance and quota at the owner's account tier), with the key's overrides and credits.
 */
import { toPolicy } from "../rate-limit/duration.js";
import type { RateLimitPolicy } from "../rate-limit/types.js";
import type { StoredKey } from "../storage/key-store.js";
import type { TierLadder } from "../tiers/tier-ladder.js";
import type { CounterIncrement } from "./counter-increments.js";
import { maxLimitNumber } from "./limit-number.js";
import { ownerLimitKey } from "./owner-limit-key.js";
import type { KeyLimits, LimitLayer } from "./types.js";

export interface KeyLimitPlan {
  /** The per-key rate limit. */
  policy: RateLimitPolicy;
  /** The layers when there is more than the per-key one; undefined: the single-layer fast path. */
  layers: LimitLayer[] | undefined;
  /** `ownerLimitKey(key)`. */
  owner: string;
  /**
   * Counters a charge step adds to in the same store step, when the request is admitted
   * (`counter-increments.ts`); with no layers beyond the key's own, the key's layer carries them.
   */
  increments?: readonly CounterIncrement[];
}

// Overrides are parsed once per record object: the verification cache hands out the same object.
const overridePolicies = new WeakMap<
  KeyLimits,
  { key?: RateLimitPolicy; owner?: RateLimitPolicy }
>();

function policiesOf(limits: KeyLimits) {
  let parsed = overridePolicies.get(limits);
  if (!parsed) {
    parsed = {};
    if (limits.rateLimit) parsed.key = toPolicy(limits.rateLimit);
    if (limits.ownerRateLimit) parsed.owner = toPolicy(limits.ownerRateLimit);
    overridePolicies.set(limits, parsed);
  }
  return parsed;
}

// The plan of a record at a tier, for the default cost: records are immutable objects (a change
// gives a new one), so the plan is built once per record instead of once per request.
const plans = new WeakMap<StoredKey, { tiers: TierLadder; tier: string; plan: KeyLimitPlan }>();

/**
 * @param tier the tier the key runs at (`TierLadder.effective`)
 * @param cost credits this request spends
 */
export function planKeyLimits(
  tiers: TierLadder,
  key: StoredKey,
  tier: string,
  cost: number,
): KeyLimitPlan {
  if (cost !== 1) return buildPlan(tiers, key, tier, cost);
  const cached = plans.get(key);
  if (cached && cached.tier === tier && cached.tiers === tiers) return cached.plan;
  const plan = buildPlan(tiers, key, tier, cost);
  plans.set(key, { tiers, tier, plan });
  return plan;
}

/** The key's own rate limit as a layer: for a plan with no layers whose increments must ride it. */
export function ownKeyLayer(key: StoredKey, policy: RateLimitPolicy): LimitLayer {
  return { layer: "key", bucket: `key:${key.id}`, policy };
}

function buildPlan(tiers: TierLadder, key: StoredKey, tier: string, cost: number): KeyLimitPlan {
  const limits = key.limits ?? undefined;
  const overrides = limits ? policiesOf(limits) : undefined;
  const policy = overrides?.key ?? tiers.policy(tier);
  const owner = ownerLimitKey(key);
  // The owner layers follow the owner's account tier as recorded with the key.
  const tierLayers = tiers.layers(
    key.ownerTier === null ? tier : tiers.resolveAccountTier(key.ownerTier),
  );
  const ownerPolicy =
    limits?.ownerRateLimit === false ? undefined : (overrides?.owner ?? tierLayers.ownerPolicy);
  const quota = limits?.quota === false ? undefined : (limits?.quota ?? tierLayers.quota);
  const credits = limits?.credits ? withinBound(limits.credits) : undefined;
  if (!ownerPolicy && !quota && !credits) return { policy, layers: undefined, owner };

  const layers: LimitLayer[] = [ownKeyLayer(key, policy)];
  if (ownerPolicy) layers.push({ layer: "owner", bucket: `owner:${owner}`, policy: ownerPolicy });
  if (quota) {
    layers.push({
      layer: "quota",
      bucket: `quota:${owner}`,
      limit: Math.min(quota.limit, maxLimitNumber),
      period: quota.period,
    });
  }
  if (credits) {
    layers.push({
      layer: "credits",
      bucket: `credits:${key.id}`,
      cost,
      remaining: credits.remaining,
      grantedAt: credits.grantedAt,
      ...(credits.refill ? { refill: credits.refill } : {}),
    });
  }
  return { policy, layers, owner };
}

/**
 * Credits as a store can count them: a key stored before every way in bounded its numbers (an
 * import of `remaining: 1e308`) runs at the bound instead, which no store would keep exactly
 * (PostgreSQL's bigint, the Redis scripts' `%d`), rather than failing every request.
 */
function withinBound<T extends { remaining: number; refill?: { amount: number } | undefined }>(
  credits: T,
): T {
  if (credits.remaining <= maxLimitNumber && (credits.refill?.amount ?? 0) <= maxLimitNumber) {
    return credits;
  }
  return {
    ...credits,
    remaining: Math.min(credits.remaining, maxLimitNumber),
    ...(credits.refill
      ? { refill: { ...credits.refill, amount: Math.min(credits.refill.amount, maxLimitNumber) } }
      : {}),
  };
}
