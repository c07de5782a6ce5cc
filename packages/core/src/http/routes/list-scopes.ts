import { jsonResponse } from "../json-response.js";
import type { EndpointHandler } from "./route-context.js";

/** `GET /api-keys/scopes` → every scope a key can be granted, with its description. */
export const listScopes: EndpointHandler = async ({ context, headers }) =>
  jsonResponse(200, { data: context.scopes.list() }, headers);
