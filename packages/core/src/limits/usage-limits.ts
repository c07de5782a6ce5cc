/**
 * The quota and credits a usage report shows, read from the store without spending anything.
 */
import { isoTime } from "../api/key-record.js";
import type { KeywardContext } from "../keyward/context.js";
import type { StoredKey } from "../storage/key-store.js";
import { planKeyLimits } from "./resolve-layers.js";
import type { CalendarPeriod } from "./types.js";

export interface UsageLimits {
  /** The owner's quota as this key's requests count against it; absent without one. */
  quota?: { limit: number; remaining: number; period: CalendarPeriod; resetsAt: string };
  /** The key's credits; absent without them. `refillsAt` is null without a refill. */
  credits?: {
    remaining: number;
    refill: { amount: number; period: CalendarPeriod } | null;
    refillsAt: string | null;
  };
}

export async function usageLimits(
  ctx: KeywardContext,
  key: StoredKey,
  now: number,
): Promise<UsageLimits> {
  const tier = ctx.tiers.effective(key.tier, key.ownerTier);
  const plan = planKeyLimits(ctx.tiers, key, tier, 0);
  const layers = plan.layers?.filter(
    (layer) => layer.layer === "quota" || layer.layer === "credits",
  );
  if (!layers || layers.length === 0 || !ctx.layeredLimits) return {};
  const decisions = await ctx.layeredLimits.read({ owner: plan.owner, layers, now });
  const report: UsageLimits = {};
  layers.forEach((layer, index) => {
    const decision = decisions[index]!;
    if (layer.layer === "quota") {
      report.quota = {
        limit: layer.limit,
        remaining: decision.remaining,
        period: layer.period,
        resetsAt: isoTime(decision.reset),
      };
    } else if (layer.layer === "credits") {
      report.credits = {
        remaining: decision.remaining,
        refill: layer.refill ? { ...layer.refill } : null,
        refillsAt: layer.refill ? isoTime(decision.reset) : null,
      };
    }
  });
  return report;
}
