import { createKeyPath } from "./create-key.js";
import { keyEventsPath } from "./key-events.js";
import { keyUsagePath } from "./key-usage.js";
import { listKeysPath } from "./list-keys.js";
import { listScopesPath } from "./list-scopes.js";
import { openapiDocumentPath } from "./openapi-document.js";
import type { PathBuilder } from "./path-builder.js";
import { revokeKeyPath } from "./revoke-key.js";
import { rotateKeyPath } from "./rotate-key.js";
import { secretScanningPath } from "./secret-scanning.js";
import { updateKeyPath } from "./update-key.js";

/**
 * Every endpoint under the base path, in the order the document lists them. A v0.2 feature adds
 * its builder here (with `enabled`), and the document grows with it when it is configured.
 */
export const pathBuilders: readonly PathBuilder[] = [
  listKeysPath,
  createKeyPath,
  listScopesPath,
  rotateKeyPath,
  keyUsagePath,
  revokeKeyPath,
  updateKeyPath,
  keyEventsPath,
  openapiDocumentPath,
  secretScanningPath,
];
