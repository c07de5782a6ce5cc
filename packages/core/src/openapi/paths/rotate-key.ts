import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { keyIdParameter, type PathBuilder, sessionOnly } from "./path-builder.js";

export const rotateKeyPath: PathBuilder = {
  path: "/{key_id}/rotate",
  method: "post",
  build: (context) => ({
    operationId: "rotateKey",
    summary: "Rotate a key",
    description:
      "Issues a new secret; id, name, scopes, tier, expiry and usage stay. The old secret fails at once.",
    tags: ["API keys"],
    security: sessionOnly,
    parameters: [keyIdParameter],
    responses: {
      "200": successResponse(context, "The key with its new secret", "KeyWithSecret", {
        noStore: true,
      }),
      ...errorResponses(404, 409, 410, ...guardedErrors),
    },
  }),
};
