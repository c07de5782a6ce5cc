import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { componentRef } from "../schemas/component-ref.js";
import { ifMatchParameter, keyIdParameter, type PathBuilder, sessionOnly } from "./path-builder.js";

/** `PATCH {basePath}/{key_id}`: served only with `keyUpdates: true`. */
export const updateKeyPath: PathBuilder = {
  path: "/{key_id}",
  method: "patch",
  enabled: (context) => context.keyUpdates,
  build: (context) => ({
    operationId: "updateKey",
    summary: "Update a key",
    description:
      "Renames, narrows the scopes, replaces or removes the metadata or the IP allowlist, disables or enables a key; fields left out stay as they are. The secret does not change. A field the body does not define is refused (422, `extra_forbidden`). With `If-Match` (the `ETag` of the record as last seen) the change applies only if the key is still at that version, else 412; without it, a change that races another one is checked again against the key as the other left it.",
    tags: ["API keys"],
    security: sessionOnly,
    parameters: [keyIdParameter, ifMatchParameter],
    requestBody: {
      required: true,
      content: { "application/json": { schema: componentRef("UpdateKeyBody") } },
    },
    responses: {
      "200": successResponse(context, "The key as updated", "KeyRecord", { entityTag: true }),
      ...errorResponses(400, 404, 409, 410, 412, 413, 415, 422, ...guardedErrors),
    },
  }),
};
