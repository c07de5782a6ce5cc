/**
 * The demo's layered limits (docs/examples.md, "Configuration"), off when unset:
 * `KEYWARD_OWNER_LIMITS` (`free=100,pro=1000`): requests a minute shared by all of an owner's keys;
 * `KEYWARD_QUOTAS` (`free=1000/day,pro=100000/month`): requests per owner per UTC day or month.
 * Anything malformed throws with the offending part named, as `KEYWARD_TIER_LIMITS` does.
 */
import type { QuotaConfig } from "@keyward/core";
import { type DemoTier, DEMO_TIER_NAMES as demoTierNames } from "@keyward/testing/demo-contract";

export type OwnerLimits = Partial<Record<DemoTier, number>>;
export type Quotas = Partial<Record<DemoTier, QuotaConfig>>;

/** `tier=value` entries, each tier at most once, each value read by `read` (null: malformed). */
function parseEntries<T>(
  name: string,
  example: string,
  value: string | undefined,
  read: (text: string) => T | null,
  expected: string,
): Partial<Record<DemoTier, T>> {
  const parsed: Partial<Record<DemoTier, T>> = {};
  if (value === undefined || value.trim() === "") return parsed;
  for (const part of value.split(",")) {
    const entry = part.trim();
    const match = /^([^=\s]+)\s*=\s*(\S+)$/.exec(entry);
    if (!match) {
      throw new TypeError(
        `${name}: "${entry}" is not tier=value (expected something like ${example})`,
      );
    }
    const [, tier, text] = match as unknown as [string, string, string];
    if (!(demoTierNames as string[]).includes(tier)) {
      throw new TypeError(
        `${name}: unknown tier "${tier}" (the demo tiers are ${demoTierNames.join(", ")})`,
      );
    }
    if (Object.hasOwn(parsed, tier)) throw new TypeError(`${name}: tier "${tier}" is given twice`);
    const result = read(text);
    if (result === null)
      throw new TypeError(`${name}: the value of "${tier}" must be ${expected} (got "${text}")`);
    parsed[tier as DemoTier] = result;
  }
  return parsed;
}

const wholeNumber = (text: string) => {
  const value = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(value) && value >= 1 ? value : null;
};

export function parseOwnerLimits(value: string | undefined): OwnerLimits {
  return parseEntries(
    "KEYWARD_OWNER_LIMITS",
    "free=100,pro=1000",
    value,
    wholeNumber,
    "a whole number of requests a minute, at least 1",
  );
}

export function parseQuotas(value: string | undefined): Quotas {
  return parseEntries(
    "KEYWARD_QUOTAS",
    "free=1000/day,pro=100000/month",
    value,
    (text) => {
      const match = /^(\d+)\/(day|month)$/.exec(text);
      const limit = match ? wholeNumber(match[1]!) : null;
      return match && limit !== null ? { limit, period: match[2] as QuotaConfig["period"] } : null;
    },
    "requests/day or requests/month, e.g. 1000/day",
  );
}
