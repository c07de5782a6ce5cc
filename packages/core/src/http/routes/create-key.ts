import { KeywardError } from "../../errors/keyward-error.js";
import { jsonResponse } from "../json-response.js";
import { isMissingBody, readJsonBody } from "../read-json-body.js";
import type { EndpointHandler } from "./route-context.js";

/** `POST /api-keys` → 201 with the record and the secret, this once. */
export const createKey: EndpointHandler = async ({ request, user, keys, bodyLimit, headers }) => {
  const body = await readJsonBody(request, bodyLimit);
  if (isMissingBody(body)) {
    throw new KeywardError("validation_failed", [
      { loc: ["body"], msg: "Field required", type: "missing" },
    ]);
  }
  // The raw body may be anything JSON (an array, a string): validation reports those too.
  const created = await keys.forCaller.create(user, body);
  return jsonResponse(201, created, { ...headers, "cache-control": "no-store" });
};
