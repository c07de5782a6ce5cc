import type { KeyCheck } from "../../auth/key-checks.js";
import type { KeyResourceLimits } from "../../keys/key-resources.js";

/**
 * `verify`'s key check for resource-limited keys: a route that says what it is about
 * (`resource: { profile: slug }`) admits a key limited in a kind only for an id it lists. A key
 * without `resources`, a kind the key does not limit, and a route that names no resource pass.
 * It reads the record `verify` already holds: no store call, and nothing at all for a key without
 * resources or a route without `resource`.
 */
export const resourceCheck: KeyCheck = {
  name: "resources",
  check(key, options, kit) {
    const limits = key.fields?.resources as KeyResourceLimits | undefined;
    const wanted = options.resource;
    if (limits == null || wanted === undefined) return undefined;
    for (const kind of Object.keys(wanted)) {
      // Own properties only: a route naming `constructor` or `toString` would otherwise read the
      // limits' inherited function for it.
      if (!Object.hasOwn(limits, kind)) continue;
      const allowed = limits[kind]!;
      const id = wanted[kind];
      if (typeof id === "string" && allowed.includes(id)) continue;
      return kit.refuse(
        "resource_not_allowed",
        `This API key may not be used for ${kind} ${JSON.stringify(String(id))}`,
      );
    }
    return undefined;
  },
};
