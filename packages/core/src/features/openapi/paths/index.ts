import { createKeyPath } from "./create-key.js";
import { keyEventsPath } from "./key-events.js";
import { keyUsagePath } from "./key-usage.js";
import { listKeysPath } from "./list-keys.js";
import { listScopesPath } from "./list-scopes.js";
import type { PathBuilder } from "./path-builder.js";
import { revokeKeyPath } from "./revoke-key.js";
import { rotateKeyPath } from "./rotate-key.js";
import { updateKeyPath } from "./update-key.js";

/**
 * The endpoints under the base path, in the order the document lists them (a builder's `enabled`
 * says when the instance serves it). A feature module's paths come from the feature
 * (`FeatureParts.openapi`) and follow these.
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
];
