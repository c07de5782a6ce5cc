import type { ValidationIssue } from "../../errors/validation-issue.js";
import type { KeyResourceLimits } from "../../keys/key-resources.js";

/**
 * What an update of a key's resources from `current` to `requested` would widen: a kind the key
 * limits that `requested` leaves out (the key would be unlimited in it), or an id it does not list.
 * A kind the key does not limit yet may be added (that narrows). A key without resources may get
 * any (from every resource to some). Each issue points at what widens, all at once.
 */
export function widenedResources(
  current: KeyResourceLimits | null,
  requested: KeyResourceLimits,
): ValidationIssue[] {
  if (current === null) return [];
  const issues: ValidationIssue[] = [];
  for (const [kind, ids] of Object.entries(current)) {
    // Own properties only: `requested.constructor` would otherwise be Object's.
    const next = Object.hasOwn(requested, kind) ? requested[kind] : undefined;
    if (next === undefined) {
      issues.push({
        loc: ["body", "resources", kind],
        msg: `Value error, the key is limited to some ${kind} resources; leaving ${kind} out would lift that limit (resources can only be narrowed)`,
        type: "value_error",
      });
      continue;
    }
    next.forEach((id, index) => {
      if (!ids.includes(id)) {
        issues.push({
          loc: ["body", "resources", kind, index],
          msg: `Value error, ${kind} ${JSON.stringify(id)} is not one this key may be used for; resources can only be narrowed`,
          type: "value_error",
        });
      }
    });
  }
  return issues;
}
