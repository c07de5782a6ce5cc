import { jsonResponse } from "../json-response.js";
import { isMissingBody, readJsonBody } from "../read-json-body.js";
import type { EndpointHandler } from "./route-context.js";

/**
 * `POST /api-keys/{key_id}/rotate` → the record with its new secret. The old one fails at once,
 * or, with `gracefulRotation` and `{ "gracePeriodSeconds": n }`, n seconds later. Without
 * `gracefulRotation` the body is not read, as in v0.1.
 */
export const rotateKey: EndpointHandler = async ({
  request,
  user,
  keyId,
  keys,
  context,
  bodyLimit,
  headers,
}) => {
  let body: unknown = {};
  if (context.gracefulRotation) {
    const read = await readJsonBody(request, bodyLimit);
    if (!isMissingBody(read)) body = read;
  }
  return jsonResponse(200, await keys.forCaller.rotate(user, keyId, body), {
    ...headers,
    "cache-control": "no-store",
  });
};
