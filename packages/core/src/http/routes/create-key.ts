import { KeywardError } from "../../errors/keyward-error.js";
import { keyEntityTag } from "../entity-tag.js";
import { jsonResponse } from "../json-response.js";
import { isMissingBody, readJsonBody } from "../read-json-body.js";
import type { EndpointHandler } from "./route-context.js";

/**
 * `POST /api-keys` → 201 with the record and the secret, this once, and the record's `ETag` (what
 * a later `If-Match` names).
 */
export const createKey: EndpointHandler = async ({ request, user, keys, bodyLimit, headers }) => {
  const body = await readJsonBody(request, bodyLimit);
  if (isMissingBody(body)) {
    throw new KeywardError("validation_failed", [
      { loc: ["body"], msg: "Field required", type: "missing" },
    ]);
  }
  // The raw body may be anything JSON (an array, a string): validation reports those too.
  const { record, version } = await keys.forCaller.create(user, body);
  return jsonResponse(201, record, {
    ...headers,
    "cache-control": "no-store",
    etag: keyEntityTag(record.id, version),
  });
};
