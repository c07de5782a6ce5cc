import type { ValidationIssue } from "../errors/validation-issue.js";

/**
 * Body fields that restrict what a key may do, by the feature that declares them, for the one case
 * the kernel must know them without that feature: when it is not listed. A create body that names
 * one is then refused (422) rather than have the field ignored like any unknown one, since a key
 * meant to be restricted must never be issued unrestricted. This is the kernel's only list of
 * features' fields; a new restricting field adds its line here.
 */
export const restrictingFields: Readonly<Record<string, string>> = {
  allowedIps: "IP allowlists need lifecycle() in the server's features",
  resources: "resource-limited keys need permissions() in the server's features",
};

/** The 422 issues of `body`'s restricting fields that no listed feature declares. */
export function unlistedRestrictions(
  body: object,
  declared: ReadonlySet<string>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [name, needs] of Object.entries(restrictingFields)) {
    if (declared.has(name) || !Object.hasOwn(body, name)) continue;
    issues.push({
      loc: ["body", name],
      msg: `Extra inputs are not permitted: ${needs}`,
      type: "extra_forbidden",
    });
  }
  return issues;
}
