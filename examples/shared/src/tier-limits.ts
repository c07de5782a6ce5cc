import {
  DEMO_TIER_LIMITS,
  DEMO_TIER_NAMES,
  type DemoTier,
  type DemoTierLimits,
} from "@keyward/testing/demo-contract";

const example = "free=60,pro=600,enterprise=1000000000";

/**
 * Reads `KEYWARD_TIER_LIMITS` (`free=60,pro=600,enterprise=1000000000`): per-minute allowances that
 * override the demo tiers' for load tests. Tiers left out keep their default; an empty value means
 * no override. Anything malformed throws with the offending part named, so a typo stops the server
 * at start instead of quietly testing the wrong limits.
 */
export function parseTierLimits(value: string | undefined): DemoTierLimits {
  const limits: DemoTierLimits = { ...DEMO_TIER_LIMITS };
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
        `KEYWARD_TIER_LIMITS: unknown tier "${tier}" (the demo tiers are ${DEMO_TIER_NAMES.join(", ")})`,
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
  return (DEMO_TIER_NAMES as string[]).includes(name);
}
