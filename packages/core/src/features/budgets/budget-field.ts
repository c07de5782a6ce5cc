/**
 * `budget`, the key field of a key's own budget: `{ "limit": n, "period": "day" | "week" |
 * "month" }` on create, on update (null removes it), on the record and in `key.created` /
 * `key.updated`. It is a layer of its own (`budget:own:<key id>`), charged beside the budgets
 * `budgets({ perKey, perOwner })` configure, never instead of them: a key's owner may narrow what
 * the key spends, and cannot lift the operator's budget by setting a larger one.
 */
import type { KeyField } from "../../keys/key-field.js";
import type { StoredKey } from "../../storage/key-store.js";
import { pydanticMeta } from "../../validation/issues.js";
import { checked, type Schema, schemaNode } from "../../validation/schema.js";
import type { Budget } from "./budget-config.js";
import { type BudgetPeriod, budgetPeriods } from "./budget-period.js";

/** A budget as a key keeps it: a type, not an interface, so it is a JSON value. */
type StoredBudget = { limit: number; period: BudgetPeriod };

export const budgetFieldName = "budget";

/** The JSON Schema of a budget in a request body. */
const budgetBody = {
  type: "object",
  properties: {
    limit: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    period: { type: "string", enum: [...budgetPeriods] },
  },
  required: ["limit", "period"],
  additionalProperties: false,
};

function budgetSchema(nullable: boolean): Schema<StoredBudget | null> {
  return checked<StoredBudget | null>((value, ctx) => {
    if (value === null && nullable) return true;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return ctx.reject({
        expected: "a budget { limit, period }",
        actual: value === null ? "null" : typeof value,
        meta: pydanticMeta(
          "dict_type",
          nullable
            ? "Input should be a valid dictionary { limit, period }, or null to remove the budget"
            : "Input should be a valid dictionary { limit, period }; leave budget out for a key without one",
        ),
      });
    }
    const { limit, period, ...extra } = value as Record<string, unknown>;
    let valid = true;
    if (limit === undefined) {
      valid = ctx.reject({
        relativePath: ["limit"],
        expected: "a whole number",
        actual: "",
        meta: pydanticMeta("missing", "Field required"),
      });
    } else if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 0) {
      valid = ctx.reject({
        relativePath: ["limit"],
        expected: "a whole number ≥ 0",
        actual: "",
        meta: pydanticMeta("int_type", "Input should be a whole number greater than or equal to 0"),
      });
    }
    if (period === undefined) {
      valid = ctx.reject({
        relativePath: ["period"],
        expected: "a period",
        actual: "",
        meta: pydanticMeta("missing", "Field required"),
      });
    } else if (!budgetPeriods.includes(period as Budget["period"])) {
      valid = ctx.reject({
        relativePath: ["period"],
        expected: "day, week or month",
        actual: "",
        meta: pydanticMeta("literal_error", "Input should be 'day', 'week' or 'month'"),
      });
    }
    for (const name of Object.keys(extra)) {
      valid = ctx.reject({
        relativePath: [name],
        expected: "no other field",
        actual: "",
        meta: pydanticMeta("extra_forbidden", "Extra inputs are not permitted"),
      });
    }
    return valid;
  });
}

const budgetRecord = schemaNode<StoredBudget>({
  domain: "object",
  required: [
    { key: "limit", value: "number" },
    { key: "period", value: "string" },
  ],
});

export const budgetField: KeyField<StoredBudget> = {
  name: budgetFieldName,
  create: budgetSchema(false) as Schema<StoredBudget>,
  update: budgetSchema(true),
  schema: {
    create: {
      ...budgetBody,
      description:
        "The key's own budget: at most `limit` spent (in the unit of `cost`) per UTC `period` (weeks start on Monday), beside any budget the operator configures; a request that would pass it is refused with 429. Omitted: none of its own.",
    },
    update: {
      anyOf: [budgetBody, { type: "null" }],
      description: "Replaces the key's own budget; null removes it.",
    },
    record: budgetRecord.describe("The key's own budget, when it has one"),
    event: budgetRecord.describe("The key's own budget, when it was set"),
  },
};

/** The key's own budget, as its record keeps it; undefined without one. */
export function ownBudgetOf(key: StoredKey): Budget | undefined {
  const value = key.fields?.[budgetFieldName] as Budget | null | undefined;
  return value ?? undefined;
}
