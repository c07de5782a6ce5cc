import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { componentRef } from "../schemas/component-ref.js";
import { type PathBuilder, sessionOnly } from "./path-builder.js";

export const createKeyPath: PathBuilder = {
  path: "",
  method: "post",
  build: (context) => ({
    operationId: "createKey",
    summary: "Create a key",
    description:
      "Answers with the record and the full secret, this once. The key's tier may not be above the caller's account tier (403). Unknown fields are ignored.",
    tags: ["API keys"],
    security: sessionOnly,
    requestBody: {
      required: true,
      content: { "application/json": { schema: componentRef("CreateKeyBody") } },
    },
    responses: {
      "201": successResponse(context, "The new key, with its secret", "KeyWithSecret", {
        noStore: true,
        entityTag: true,
      }),
      ...errorResponses(400, 413, 415, 422, ...guardedErrors),
    },
  }),
};
