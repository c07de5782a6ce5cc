import { type DemoTier, defaultTierLimits, demoTierNames, type TierLimits } from "./contract.js";

const example = "free=60,pro=600,enterprise=1000000000";

/**
 * Reads `KEYWARD_TIER_LIMITS` (`free=60,pro=600,enterprise=1000000000`): per-minute allowances that
 * override the demo tiers' for load tests. Tiers left out keep their default; an empty value means
 * no override. Anything malformed throws with the offending part named, so a typo stops the server
 * at start instead of quietly testing the wrong limits.
 */
export function parseTierLimits(value: string | undefined): TierLimits {
  const limits: TierLimits = { ...defaultTierLimits };
  if (value === undefined || value.trim() === "") return limits;
  const seen = new Set<string>();
  for (const part of value.split(",")) {
    const entry = part.trim();
    const match = /^([^=\s]+)\s*=\s*(\S+)$/.exec(entry);
    if (!match) {
      throw new TypeError(
        `KEYWARD_TIER_LIMITS: "${entry}" is not tier=limit (expected something like ${example})`,
      );
    }
    const [, tier, limit] = match as unknown as [string, string, string];
    if (!isDemoTier(tier)) {
      throw new TypeError(
        `KEYWARD_TIER_LIMITS: unknown tier "${tier}" (the demo tiers are ${demoTierNames.join(", ")})`,
      );
    }
    if (seen.has(tier)) throw new TypeError(`KEYWARD_TIER_LIMITS: tier "${tier}" is given twice`);
    seen.add(tier);
    const requests = Number(limit);
    if (!/^\d+$/.test(limit) || !Number.isSafeInteger(requests) || requests < 1) {
      throw new TypeError(
        `KEYWARD_TIER_LIMITS: the limit of "${tier}" must be a whole number of requests a minute, at least 1 (got "${limit}")`,
      );
    }
    limits[tier] = requests;
  }
  return limits;
}

function isDemoTier(name: string): name is DemoTier {
  return (demoTierNames as string[]).includes(name);
}
