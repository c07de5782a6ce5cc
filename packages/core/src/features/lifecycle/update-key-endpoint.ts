import { KeywardError } from "../../errors/keyward-error.js";
import { ifMatchPrecondition, keyEntityTag } from "../../http/entity-tag.js";
import { jsonResponse } from "../../http/json-response.js";
import { isMissingBody, readJsonBody } from "../../http/read-json-body.js";
import type { FeatureEndpointHandler } from "../../http/routes/route-context.js";

/**
 * `PATCH /api-keys/{key_id}` (with `lifecycle()` listed) → 200 with the updated record and its `ETag`.
 * With `If-Match`, the change applies only to the version its tags name: 412 otherwise.
 */
export const updateKeyEndpoint: FeatureEndpointHandler = async ({
  request,
  user,
  keyId,
  keys,
  bodyLimit,
  headers,
}) => {
  const body = await readJsonBody(request, bodyLimit);
  if (isMissingBody(body)) {
    throw new KeywardError("validation_failed", [
      { loc: ["body"], msg: "Field required", type: "missing" },
    ]);
  }
  const precondition = ifMatchPrecondition(request.headers.get("if-match"), keyId);
  const { record, version } = await keys.forCaller.update(user, keyId, body, precondition);
  return jsonResponse(200, record, { ...headers, etag: keyEntityTag(record.id, version) });
};
