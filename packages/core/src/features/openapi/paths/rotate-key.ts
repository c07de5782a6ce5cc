import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { componentRef } from "../schemas/component-ref.js";
import { ifMatchParameter, keyIdParameter, type PathBuilder, sessionOnly } from "./path-builder.js";

export const rotateKeyPath: PathBuilder = {
  path: "/{key_id}/rotate",
  method: "post",
  build: (context) => ({
    operationId: "rotateKey",
    summary: "Rotate a key",
    description: context.rotateKeyBody
      ? "Issues a new secret; id, name, scopes, tier, expiry and usage stay. The old secret fails at once, or, with `gracePeriodSeconds`, keeps working until the record's `previousSecretExpiresAt`; a later rotation or a revocation ends that grace at once. With `If-Match`, only if the key is still at that version (412 otherwise)."
      : "Issues a new secret; id, name, scopes, tier, expiry and usage stay. The old secret fails at once. With `If-Match`, only if the key is still at that version (412 otherwise).",
    tags: ["API keys"],
    security: sessionOnly,
    parameters: [keyIdParameter, ifMatchParameter],
    ...(context.rotateKeyBody
      ? {
          requestBody: {
            required: false,
            content: { "application/json": { schema: componentRef("RotateKeyBody") } },
          },
        }
      : {}),
    responses: {
      "200": successResponse(context, "The key with its new secret", "KeyWithSecret", {
        noStore: true,
        entityTag: true,
      }),
      ...(context.rotateKeyBody
        ? errorResponses(400, 404, 409, 410, 412, 413, 415, 422, ...guardedErrors)
        : errorResponses(404, 409, 410, 412, ...guardedErrors)),
    },
  }),
};
