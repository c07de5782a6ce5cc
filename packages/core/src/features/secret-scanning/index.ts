/**
 * `@keyward/core/secret-scanning`: GitHub's secret-scanning partner endpoint as a feature module.
 * Listed, `POST {basePath}/secret-scanning` takes GitHub's signed reports of tokens found in public,
 * revokes the keys among them (or, with `action: "report"`, only reports them) and writes
 * `key.leaked`. See docs/leaked-keys.md.
 *
 * @example
 * import { secretScanning } from "@keyward/core/secret-scanning";
 * createKeyward({ store, scopes, tiers, jwt, features: [secretScanning({ action: "revoke" })] });
 */
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { secretScanningPath } from "./openapi-path.js";
import {
  checkSecretScanningConfig,
  resolveSecretScanning,
  type SecretScanningConfig,
} from "./secret-scanning-config.js";
import { secretScanningEndpoint, secretScanningSubpath } from "./secret-scanning-endpoint.js";

export type { LeakAction, SecretScanningConfig } from "./secret-scanning-config.js";

/** Throws a `TypeError` naming the field for a malformed `config`. `{}` (the default) for GitHub's. */
export function secretScanning(
  config: SecretScanningConfig = {},
): KeywardFeature<"secretScanning"> {
  checkSecretScanningConfig(config);
  const resolved = resolveSecretScanning(config);
  return {
    name: "secretScanning",
    install: (kernel) => ({
      routes: [
        { subpath: secretScanningSubpath, handle: secretScanningEndpoint(kernel, resolved) },
      ],
      openapi: [secretScanningPath],
    }),
  };
}
