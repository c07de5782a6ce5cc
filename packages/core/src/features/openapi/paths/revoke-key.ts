import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { keyIdParameter, type PathBuilder, sessionOnly } from "./path-builder.js";

export const revokeKeyPath: PathBuilder = {
  path: "/{key_id}",
  method: "delete",
  build: (context) => ({
    operationId: "revokeKey",
    summary: "Revoke a key",
    description: "Permanent. The key still lists, with status `revoked`.",
    tags: ["API keys"],
    security: sessionOnly,
    parameters: [keyIdParameter],
    responses: {
      "200": successResponse(context, "The key is revoked", "RevokedKey"),
      ...errorResponses(404, 410, ...guardedErrors),
    },
  }),
};
