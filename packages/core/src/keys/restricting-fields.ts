/**
 * Key fields that restrict what a key may do, by the feature that declares them, for the one case
 * the kernel must know them without that feature: when it is not listed. A create body that names
 * one is then refused (422) rather than have the field ignored like any unknown one, since a key
 * meant to be restricted must never be issued unrestricted; and a key stored with one is refused
 * by `verify` (and said once in the log) rather than waved through. This is the kernel's only list
 * of features' fields (`scripts/kernel/feature-fields.test.ts` holds it to that); a new
 * restricting field adds its entry here.
 */
import type { KeyCheck } from "../auth/key-checks.js";
import type { ValidationIssue } from "../errors/validation-issue.js";

interface RestrictingField {
  /** What a create body naming the field is told it needs (422 `extra_forbidden`). */
  readonly needs: string;
  /** The check that refuses a key stored with the field, where no listed feature checks it. */
  readonly unchecked: KeyCheck;
}

const restrictingFields: Readonly<Record<string, RestrictingField>> = {
  allowedIps: {
    needs: "IP allowlists need lifecycle() in the server's features",
    // Refused from every address.
    unchecked: {
      name: "allowed-ips-unchecked",
      check(key, _options, kit) {
        if (key.fields?.allowedIps == null) return undefined;
        kit.warnOnce(
          "allowed-ips-without-lifecycle",
          () =>
            "a key with an IP allowlist was refused because this instance does not list lifecycle(), which checks allowlists; list it (from @keyward/core/lifecycle) on every instance that verifies these keys.",
        );
        return kit.refuse(
          "ip_not_allowed",
          "This API key may not be used from this client address",
        );
      },
    },
  },
  resources: {
    needs: "resource-limited keys need permissions() in the server's features",
    // Refused wherever a route names a resource, rather than let through to one outside its limits.
    unchecked: {
      name: "resources-unchecked",
      check(key, options, kit) {
        if (key.fields?.resources == null || options.resource === undefined) return undefined;
        kit.warnOnce(
          "resources-without-permissions",
          () =>
            "a key limited to resources was refused because this instance does not list permissions(), which checks them; list it (from @keyward/core/permissions) on every instance that verifies these keys.",
        );
        return kit.refuse("resource_not_allowed", "This API key may not be used for this resource");
      },
    },
  },
};

/** The 422 issues of `body`'s restricting fields that no listed feature declares. */
export function unlistedRestrictions(
  body: object,
  declared: ReadonlySet<string>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [name, { needs }] of Object.entries(restrictingFields)) {
    if (declared.has(name) || !Object.hasOwn(body, name)) continue;
    issues.push({
      loc: ["body", name],
      msg: `Extra inputs are not permitted: ${needs}`,
      type: "extra_forbidden",
    });
  }
  return issues;
}

/** The checks that refuse keys stored with a restricting field no listed feature declares. */
export function uncheckedRestrictions(declared: ReadonlySet<string>): KeyCheck[] {
  return Object.entries(restrictingFields)
    .filter(([name]) => !declared.has(name))
    .map(([, { unchecked }]) => unchecked);
}
