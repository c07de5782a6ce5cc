import { KeywardError } from "../../errors/keyward-error.js";
import { jsonResponse } from "../json-response.js";
import { isMissingBody, readJsonBody } from "../read-json-body.js";
import type { EndpointHandler } from "./route-context.js";

/** `PATCH /api-keys/{key_id}` (with `keyUpdates`) → 200 with the updated record. */
export const updateKey: EndpointHandler = async ({
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
  return jsonResponse(200, await keys.forCaller.update(user, keyId, body), headers);
};
