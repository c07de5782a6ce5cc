import { jsonResponse } from "../json-response.js";
import type { EndpointHandler } from "./route-context.js";

/** `DELETE /api-keys/{key_id}` → confirmation that the key is permanently revoked. */
export const revokeKey: EndpointHandler = async ({ user, keyId, keys, headers }) =>
  jsonResponse(200, await keys.forCaller.revoke(user, keyId), headers);
