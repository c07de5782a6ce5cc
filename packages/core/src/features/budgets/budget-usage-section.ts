/**
 * `budgets` on a key's usage report (`GET {basePath}/{key_id}/usage`): where each of the key's
 * budgets stands in its current period, as `keyward.budgets.usage(keyId)` reads it (one layered
 * read and one sum of holds), with times as ISO 8601. Left out for a key with no budget, so a
 * report without budgets is the contract's.
 */
import type { JsonSchema } from "../../feature-interface/openapi-types.js";
import type { UsageSection } from "../../feature-interface/usage-section.js";
import type { StoredKey } from "../../storage/key-store.js";
import { budgetPeriods } from "./budget-period.js";
import type { BudgetStanding, BudgetUsage } from "./budget-usage.js";

/** One budget on the report. A type, not an interface, so it is a JSON value. */
export type BudgetStandingSection = {
  limit: number;
  period: BudgetStanding["period"];
  held: number;
  spent: number;
  left: number;
  resetsAt: string;
};

/** The `budgets` property of a usage report. */
export type BudgetsUsageSection = {
  held: number;
  key: BudgetStandingSection | null;
  own: BudgetStandingSection | null;
  owner: BudgetStandingSection | null;
};

const count = { type: "integer", minimum: 0 };
const standing = {
  type: "object",
  properties: {
    limit: count,
    period: { type: "string", enum: [...budgetPeriods] },
    held: { ...count, description: "What the key's unsettled holds take from this budget now" },
    spent: { ...count, description: "What was spent for good this period" },
    left: { ...count, description: "What a request may still spend: limit − spent − held" },
    resetsAt: {
      type: "string",
      format: "date-time",
      description: "When the budget is whole again: the next UTC period's first instant",
    },
  },
  required: ["limit", "period", "held", "spent", "left", "resetsAt"],
};
const standingOrNull = (description: string) => ({
  anyOf: [standing, { type: "null" }],
  description,
});

const sectionSchema: JsonSchema = {
  type: "object",
  properties: {
    held: {
      ...count,
      description: "What the key's unsettled holds hold now, from its credits and budgets",
    },
    key: standingOrNull("The budget `budgets({ perKey })` sets for the key; null without one"),
    own: standingOrNull("The key's own budget (its `budget` field); null without one"),
    owner: standingOrNull(
      "The budget shared by the owner's keys (`perOwner`); null without one. Its `held` counts every key's holds of the owner where holds are kept as layers (Redis); elsewhere this key's only, the other keys' holds then in its `spent`",
    ),
  },
  required: ["held", "key", "own", "owner"],
  description: "The key's budgets in their current periods; present when the key has a budget",
};

function shown(standing: BudgetStanding | null): BudgetStandingSection | null {
  if (standing === null) return null;
  const { limit, period, held, spent, left, resetsAt } = standing;
  return { limit, period, held, spent, left, resetsAt: new Date(resetsAt).toISOString() };
}

export function budgetsUsageSection(
  read: (key: StoredKey, now: number) => Promise<BudgetUsage>,
): UsageSection {
  return {
    name: "budgets",
    schema: sectionSchema,
    async read({ key, now }) {
      const usage = await read(key, now);
      if (usage.key === null && usage.own === null && usage.owner === null) return undefined;
      const section: BudgetsUsageSection = {
        held: usage.held,
        key: shown(usage.key),
        own: shown(usage.own),
        owner: shown(usage.owner),
      };
      return section;
    },
  };
}
