/**
 * `@keyward/core/lifecycle`: what happens to a key between its creation and its revocation, as a
 * feature module: `PATCH {basePath}/{key_id}` (rename, metadata, disable and enable, IP allowlist,
 * narrowing scopes), graceful rotation, and a cap on the keys an owner may hold. See docs/lifecycle.md.
 *
 * @example
 * import { lifecycle } from "@keyward/core/lifecycle";
 * createKeyward({ store, scopes, tiers, jwt, features: [lifecycle({ gracefulRotation: { maxGracePeriodSeconds: 86_400 } })] });
 */
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { allowedIpsCheck } from "./allowed-ips-check.js";
import { allowedIpsField } from "./allowed-ips-field.js";
import { keyLimitHook } from "./key-limit-hook.js";
import {
  checkLifecycleConfig,
  defaultMaxGracePeriodSeconds,
  defaultMaxKeysPerOwner,
  type LifecycleConfig,
} from "./lifecycle-config.js";
import { updateKeyEndpoint } from "./update-key-endpoint.js";

export type { LifecycleConfig } from "./lifecycle-config.js";

/** Throws a `TypeError` naming the field for a malformed `config`. */
export function lifecycle(config: LifecycleConfig = {}): KeywardFeature<"lifecycle"> {
  checkLifecycleConfig(config);
  const { gracefulRotation, maxKeysPerOwner } = config;
  const maxGrace =
    gracefulRotation === undefined || gracefulRotation === false
      ? undefined
      : gracefulRotation === true
        ? defaultMaxGracePeriodSeconds
        : (gracefulRotation.maxGracePeriodSeconds ?? defaultMaxGracePeriodSeconds);
  return {
    name: "lifecycle",
    extends: {
      fields: [allowedIpsField],
      verify: { check: [allowedIpsCheck] },
      writes: {
        beforeCreate:
          maxKeysPerOwner === false
            ? []
            : [keyLimitHook(maxKeysPerOwner ?? defaultMaxKeysPerOwner)],
        // Graceful rotation: the rotate body's `gracePeriodSeconds`, up to the maximum.
        beforeRotate:
          maxGrace === undefined ? [] : [{ name: "grace", grace: { maxSeconds: maxGrace } }],
      },
    },
    install: () => ({
      endpoints:
        config.updates === false
          ? []
          : [{ path: "/{key_id}", method: "PATCH", handle: updateKeyEndpoint }],
    }),
  };
}
