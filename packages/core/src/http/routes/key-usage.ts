import { jsonResponse } from "../json-response.js";
import type { EndpointHandler } from "./route-context.js";

/** `GET /api-keys/{key_id}/usage` → totals, last use, per-endpoint and per-day counts. */
export const keyUsage: EndpointHandler = async ({ user, keyId, keys, headers }) =>
  jsonResponse(200, await keys.forCaller.usage(user, keyId), headers);
