/**
 * Per-key limits as a change of `keys.update`: the operator's `limits` field is taken out of the
 * changes before the rest is checked as a PATCH body would be, and turned into the key's next
 * limits. The PATCH endpoint refuses the field: its body is the key owner's, and an owner never
 * sets their own limits: limits are what the operator sells, not the owner's to choose.
 */
import type { ValidationIssue } from "../errors/validation-issue.js";
import { applyOverrides } from "./check-limits.js";
import type { KeyLimitOverrides, KeyLimits } from "./types.js";

/** The changes without `limits`, and `limits` itself (undefined when absent). */
export function takeLimits(changes: unknown): {
  rest: unknown;
  limits: KeyLimitOverrides | null | undefined;
} {
  if (!hasLimits(changes)) return { rest: changes, limits: undefined };
  const { limits, ...rest } = changes as { limits: KeyLimitOverrides | null };
  return { rest, limits };
}

export function hasLimits(body: unknown): boolean {
  return typeof body === "object" && body !== null && Object.hasOwn(body, "limits");
}

/** The 422 issue of a PATCH body that names `limits`. */
export const limitsNotAllowed: ValidationIssue = {
  loc: ["body", "limits"],
  msg: "Extra inputs are not permitted: a key's limits are set by the operator, not through the API",
  type: "extra_forbidden",
};

/** The key's limits once `overrides` apply (see `applyOverrides`), or the issue with them. */
export function limitsAfter(
  current: KeyLimits | null | undefined,
  overrides: KeyLimitOverrides | null,
  now: number,
): { limits: KeyLimits | null } | { issue: ValidationIssue } {
  try {
    return { limits: applyOverrides(current, overrides, now) };
  } catch (error) {
    return {
      issue: {
        loc: ["body", "limits"],
        msg: `Value error, ${(error as Error).message}`,
        type: "value_error",
      },
    };
  }
}
