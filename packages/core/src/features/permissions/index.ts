/**
 * @keyward/core/permissions — resource-limited keys. A key may be limited to some resources by
 * kind, `resources: { profile: ["alice"] }`, on create and (narrowing only) on PATCH; a guard given
 * `resource: { profile: slug }` refuses it anywhere else with 403 `resource_not_allowed`. The check
 * reads the key record `verify` already holds, so it costs no store call. `maxLifetime` is the
 * policy of how long a new key may live, per tier or owner; `disableAfterUnused` disables keys left
 * unused; `lastUsedAddress` keeps the client address of each key's last use.
 */
import { periodicTask } from "../../background/periodic-task.js";
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { type InactivityScanResult, inactivityScan } from "./inactivity-scan.js";
import { lastUsedAddressField } from "./last-used-address-field.js";
import { lifetimeHook } from "./lifetime-hook.js";
import {
  checkPermissionsConfig,
  inactivityPolicy,
  inactivityWarningMs,
  lifetimePolicy,
  type PermissionsConfig,
} from "./permissions-config.js";
import { resourceCheck } from "./resource-check.js";
import { resourcesField } from "./resources-field.js";

export type { InactivityScanResult } from "./inactivity-scan.js";
export type { KeyLifetime, PermissionsConfig } from "./permissions-config.js";

/**
 * Resource-limited keys: `resources` on create and PATCH, checked by every guard's `resource`;
 * with `maxLifetime`, the longest a new key may live (an expiry required and capped); with
 * `lastUsedAddress: true`, the client address of each key's last use, kept with its `lastUsedAt`.
 * Throws a `TypeError` naming the field for a malformed `config`.
 *
 * @example
 * import { permissions } from "@keyward/core/permissions";
 * const keyward = createKeyward({ store, scopes, tiers, jwt, features: [lifecycle(), permissions()] });
 * app.get("/profiles/:slug", requireApiKey(keyward, {
 *   scopes: ["profile:read"],
 *   resource: (req) => ({ profile: req.params.slug }),
 * }), handler);
 */
export function permissions(
  config: PermissionsConfig = {},
): KeywardFeature<"permissions", PermissionsApi> {
  checkPermissionsConfig(config);
  const maxKeyLifetime = lifetimePolicy(config);
  const unusedFor = inactivityPolicy(config);
  const warnMs = inactivityWarningMs(config);
  const intervalMs = config.inactivityScanIntervalMs ?? 3_600_000;
  return {
    name: "permissions",
    ...(unusedFor === undefined
      ? {}
      : {
          requires: [
            {
              has: (store) => typeof store.keys?.listLive === "function",
              missing:
                "a key store that lists live keys (`keys.listLive`: the memory, PostgreSQL or Redis store) for `disableAfterUnused`",
            },
          ],
        }),
    extends: {
      ...(maxKeyLifetime === undefined
        ? {}
        : { writes: { beforeCreate: [lifetimeHook(maxKeyLifetime)] } }),
      fields:
        config.lastUsedAddress === true
          ? [resourcesField, lastUsedAddressField()]
          : [resourcesField],
      verify: { check: [resourceCheck] },
    },
    install: (kernel) => {
      if (unusedFor === undefined) {
        return { api: { scanInactive: async () => ({ disabled: 0, warned: 0 }) } };
      }
      const scan = periodicTask({
        task: inactivityScan(kernel, { unusedFor, warnMs }),
        intervalMs,
        onError: (error) => kernel.log.reportFailure("scanning for unused keys failed", error),
      });
      scan.start();
      return { api: { scanInactive: () => scan.run() }, close: async () => scan.close() };
    },
  };
}

/** `keyward.permissions`: the inactivity scan, on demand. */
export interface PermissionsApi {
  /**
   * Scans now for keys unused past `disableAfterUnused` (joining a scan in progress): disables
   * them and warns ahead of it. Without `disableAfterUnused`, does nothing.
   */
  scanInactive(): Promise<InactivityScanResult>;
}
