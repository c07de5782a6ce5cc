import type { FeatureEndpointLike } from "../router.js";
import { createKey } from "./create-key.js";
import { keyUsage } from "./key-usage.js";
import { listKeys } from "./list-keys.js";
import { listScopes } from "./list-scopes.js";
import { revokeKey } from "./revoke-key.js";
import { rotateKey } from "./rotate-key.js";

/** The contract's six endpoints, by path shape under the base path and method. */
export const kernelEndpoints: readonly FeatureEndpointLike[] = [
  { path: "", method: "GET", handle: listKeys },
  { path: "", method: "POST", handle: createKey },
  { path: "/scopes", method: "GET", handle: listScopes },
  { path: "/{key_id}/rotate", method: "POST", handle: rotateKey },
  { path: "/{key_id}/usage", method: "GET", handle: keyUsage },
  { path: "/{key_id}", method: "DELETE", handle: revokeKey },
];
