/**
 * Layered limits: besides the per-key rate limit, an allowance shared by every key of an owner, a
 * quota per owner per UTC calendar period, and credits per key. A request is admitted only if every
 * layer admits it, and a refused request consumes from none (see `RateLimitStore.consumeLayers`).
 */
import type { RateLimitConfig } from "../rate-limit/duration.js";
import type { RateLimitDecision, RateLimitPolicy } from "../rate-limit/types.js";

/**
 * A UTC calendar period: a quota's, or a credit refill's. A day starts at 00:00 UTC, an ISO 8601
 * week on Monday 00:00 UTC, a month on its 1st at 00:00 UTC.
 */
export type CalendarPeriod = "day" | "week" | "month";

/** At most `limit` requests per owner per UTC calendar `period`. */
export interface QuotaConfig {
  limit: number;
  period: CalendarPeriod;
}

/**
 * A key's credits: `remaining` to spend now; with `refill`, the balance is set back to `amount` at
 * the start of every UTC calendar `period` (a reset, not an addition: unspent credits do not pile up).
 */
export interface CreditsConfig {
  remaining: number;
  refill?: { amount: number; period: CalendarPeriod };
}

/** Credits as stored with a key: `grantedAt` (epoch ms) tells a new grant from the balance in use. */
export interface StoredCredits extends CreditsConfig {
  grantedAt: number;
}

/**
 * An operator's per-key overrides (never set through the HTTP API), given to `keys.setLimits`. A
 * field that is absent leaves the key's current setting; `null` returns that layer to the tier's
 * (for credits: no credits); `false` turns the tier's layer off for this key.
 */
export interface KeyLimitOverrides {
  /** Replaces the tier's per-key `rateLimit`. */
  rateLimit?: RateLimitConfig | null;
  /** Checks this key's requests against another shared allowance, or none (`false`). */
  ownerRateLimit?: RateLimitConfig | false | null;
  /** Checks this key's requests against another limit on the owner's quota, or none (`false`). */
  quota?: QuotaConfig | false | null;
  /** Grants the key credits: the balance becomes `remaining` now, whatever was left. */
  credits?: CreditsConfig | null;
}

/** The overrides as a key record holds them: only the layers that differ from the tier's. */
export interface KeyLimits {
  rateLimit?: RateLimitConfig;
  ownerRateLimit?: RateLimitConfig | false;
  quota?: QuotaConfig | false;
  credits?: StoredCredits;
}

export type LimitLayerName = "key" | "owner" | "quota" | "credits";

/**
 * One layer of one request, as a store applies it. `bucket` names its state (see `layerBuckets`).
 * Rate layers count one per request, quotas one per request, credits `cost`.
 */
export type LimitLayer =
  | { layer: "key" | "owner"; bucket: string; policy: RateLimitPolicy }
  | { layer: "quota"; bucket: string; limit: number; period: CalendarPeriod }
  | {
      layer: "credits";
      bucket: string;
      cost: number;
      /** The balance a new grant starts with. */
      remaining: number;
      grantedAt: number;
      refill?: { amount: number; period: CalendarPeriod };
    };

/**
 * A layer's decision. For credits without a refill, `reset` and `retryAfter` are 0: the balance
 * only comes back when an operator grants more.
 */
export interface LayerDecision extends RateLimitDecision {
  layer: LimitLayerName;
  /**
   * Asked with `durableCredits`: this credits layer has no state in the store, so nothing was
   * decided (see `LayeredDecision.unseeded`).
   */
  unseeded?: boolean;
}

/** The outcome of all layers of one request, in the order they were given. */
export interface LayeredDecision {
  allowed: boolean;
  layers: LayerDecision[];
  /**
   * Asked with `durableCredits`, a credits layer had no state in the store: nothing was decided or
   * changed (`allowed` is false, `layers` mean nothing). Seed and ask again.
   */
  unseeded?: boolean;
}
