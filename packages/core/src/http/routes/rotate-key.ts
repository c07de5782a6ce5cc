import { jsonResponse } from "../json-response.js";
import type { EndpointHandler } from "./route-context.js";

/** `POST /api-keys/{key_id}/rotate` → the record with its new secret; the old one fails at once. */
export const rotateKey: EndpointHandler = async ({ user, keyId, keys, headers }) =>
  jsonResponse(200, await keys.forCaller.rotate(user, keyId), {
    ...headers,
    "cache-control": "no-store",
  });
