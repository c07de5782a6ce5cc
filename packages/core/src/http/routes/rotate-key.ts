import { ifMatchPrecondition, keyEntityTag } from "../entity-tag.js";
import { jsonResponse } from "../json-response.js";
import { isMissingBody, readJsonBody } from "../read-json-body.js";
import type { EndpointHandler } from "./route-context.js";

/**
 * `POST /api-keys/{key_id}/rotate` → the record with its new secret. The old one fails at once,
 * or, with `lifecycle({ gracefulRotation })` and `{ "gracePeriodSeconds": n }`, n seconds later. Without
 * it the body is not read, as the contract has it. The record's new `ETag` comes with it;
 * with `If-Match`, the key is rotated only at the version its tags name (412 otherwise).
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
  const precondition = ifMatchPrecondition(request.headers.get("if-match"), keyId);
  const { record, version } = await keys.forCaller.rotate(user, keyId, body, precondition);
  return jsonResponse(200, record, {
    ...headers,
    "cache-control": "no-store",
    etag: keyEntityTag(record.id, version),
  });
};
