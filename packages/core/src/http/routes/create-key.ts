import { KeywardError } from "../../errors/keyward-error.js";
import { validateCreateKeyBody } from "../../validation/create-key-body.js";
import { jsonResponse } from "../json-response.js";
import { isMissingBody, readJsonBody } from "../read-json-body.js";
import type { EndpointHandler } from "./route-context.js";

/** `POST /api-keys` → 201 with the record and the secret, this once. */
export const createKey: EndpointHandler = async ({
  request,
  user,
  keys,
  context,
  bodyLimit,
  headers,
}) => {
  const body = await readJsonBody(request, bodyLimit);
  if (isMissingBody(body)) {
    throw new KeywardError("validation_failed", [
      { loc: ["body"], msg: "Field required", type: "missing" },
    ]);
  }
  // Validated here too (not only in keys.create) because only the raw body can be an array or a
  // string, which the contract reports as a 422 on the body itself.
  const checked = validateCreateKeyBody(context.createKeyBody, body);
  if (!checked.ok) throw new KeywardError("validation_failed", checked.issues);
  const created = await keys.create({
    ownerId: user.userId,
    accountTier: user.tier,
    ...checked.value,
  });
  return jsonResponse(201, created, { ...headers, "cache-control": "no-store" });
};
