/**
 * @keyward/core/permissions — resource-limited keys. A key may be limited to some resources by
 * kind, `resources: { profile: ["alice"] }`, on create and (narrowing only) on PATCH; a guard given
 * `resource: { profile: slug }` refuses it anywhere else with 403 `resource_not_allowed`. The check
 * reads the key record `verify` already holds, so it costs no store call. `maxLifetime` is the
 * policy of how long a new key may live, per tier or owner.
 */
import type { KeywardFeature } from "../features/feature.js";
import {
  checkPermissionsConfig,
  lifetimePolicy,
  type PermissionsConfig,
} from "./permissions-config.js";
import { resourceCheck } from "./resource-check.js";
import { widenedResources } from "./resources-narrowing.js";
import { resourcesSchema } from "./resources-schema.js";

export type { KeyLifetime, PermissionsConfig } from "./permissions-config.js";

/**
 * Resource-limited keys: `resources` on create and PATCH, checked by every guard's `resource`;
 * with `maxLifetime`, the longest a new key may live (an expiry required and capped). Throws a
 * `TypeError` naming the field for a malformed `config`.
 *
 * @example
 * import { permissions } from "@keyward/core/permissions";
 * const keyward = createKeyward({ store, scopes, tiers, jwt, features: [lifecycle(), permissions()] });
 * app.get("/profiles/:slug", requireApiKey(keyward, {
 *   scopes: ["profile:read"],
 *   resource: (req) => ({ profile: req.params.slug }),
 * }), handler);
 */
export function permissions(config: PermissionsConfig = {}): KeywardFeature<"permissions"> {
  checkPermissionsConfig(config);
  const maxKeyLifetime = lifetimePolicy(config);
  return {
    name: "permissions",
    extends: {
      ...(maxKeyLifetime === undefined ? {} : { maxKeyLifetime }),
      resources: {
        createField: resourcesSchema(),
        updateField: resourcesSchema(),
        widened: widenedResources,
      },
      keyChecks: [resourceCheck],
    },
    install: () => ({}),
  };
}
