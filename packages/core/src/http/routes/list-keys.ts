import { jsonResponse } from "../json-response.js";
import type { EndpointHandler } from "./route-context.js";

/** `GET /api-keys` → the caller's keys, newest first, revoked and expired included. */
export const listKeys: EndpointHandler = async ({ user, keys, headers }) =>
  jsonResponse(200, { data: await keys.list(user.userId) }, headers);
