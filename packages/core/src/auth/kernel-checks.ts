/**
 * The kernel's own key checks, which `verify`'s phase "check" runs before the features' (see
 * `key-checks.ts`): the route's environment against the key's recorded one, and the refusal of a
 * key with an allowlist or resources where no listed feature checks them (refused: never waved
 * through).
 */
import type { KeywardContext } from "../keyward/context.js";
import type { KeyCheck } from "./key-checks.js";
import { otherEnvironmentKey } from "./verify-refusals.js";

/** The kernel's checks, then `features`'. */
export function keyChecksOf(
  ctx: Pick<KeywardContext, "environments" | "keyFields">,
  features: readonly KeyCheck[],
): readonly KeyCheck[] {
  const environment: KeyCheck = {
    // The prefix said which environment the token claims; the record says which one the key is
    // in. They agree for every key Keyward made, but a secret issued with another prefix (by a
    // second configuration writing to the same store) must not pass a route of the other one.
    name: "environment",
    check(key, options) {
      if (options.environment === undefined) return undefined;
      const actual = ctx.environments.ofKey(key);
      return actual === options.environment
        ? undefined
        : otherEnvironmentKey(actual, options.environment);
    },
  };
  // A restricting field no listed feature declares is one no listed feature checks (see
  // `keys/restricting-fields.ts`, the kernel's list of them).
  const declared = new Set(ctx.keyFields.map((field) => field.name));
  return [
    environment,
    ...(declared.has("allowedIps") ? [] : [allowlistWithoutCheck]),
    ...(declared.has("resources") ? [] : [resourcesWithoutCheck]),
    ...features,
  ];
}

/**
 * A key with an allowlist, on an instance where no listed feature checks allowlists (no
 * `lifecycle()`): refused from every address, and said once in the log, rather than waved through.
 */
const allowlistWithoutCheck: KeyCheck = {
  name: "ip-allowlist-unchecked",
  check(key, _options, kit) {
    if (key.fields?.allowedIps == null) return undefined;
    kit.warnOnce(
      "allowlist-without-lifecycle",
      () =>
        "a key with an IP allowlist was refused because this instance does not list lifecycle(), which checks allowlists; list it (from @keyward/core/lifecycle) on every instance that verifies these keys.",
    );
    return kit.refuse("ip_not_allowed", "This API key may not be used from this client address");
  },
};

/**
 * A key limited to resources on an instance without `permissions()`: refused wherever a route
 * names a resource (said once in the log), rather than let through to resources outside its limits.
 */
const resourcesWithoutCheck: KeyCheck = {
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
};
