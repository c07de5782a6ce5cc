import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { componentRef } from "../schemas/component-ref.js";
import { keyIdParameter, type PathBuilder, sessionOnly } from "./path-builder.js";

/** `PATCH {basePath}/{key_id}`: served only with `keyUpdates: true`. */
export const updateKeyPath: PathBuilder = {
  path: "/{key_id}",
  method: "patch",
  enabled: (context) => context.keyUpdates,
  build: (context) => ({
    operationId: "updateKey",
    summary: "Update a key",
    description:
      "Renames, narrows the scopes, replaces or removes the metadata or the IP allowlist, disables or enables a key; fields left out stay as they are. The secret does not change. Unknown fields are ignored.",
    tags: ["API keys"],
    security: sessionOnly,
    parameters: [keyIdParameter],
    requestBody: {
      required: true,
      content: { "application/json": { schema: componentRef("UpdateKeyBody") } },
    },
    responses: {
      "200": successResponse(context, "The key as updated", "KeyRecord"),
      ...errorResponses(400, 404, 410, 413, 415, 422, ...guardedErrors),
    },
  }),
};
