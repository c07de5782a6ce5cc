import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { type PathBuilder, sessionOnly } from "./path-builder.js";

export const listKeysPath: PathBuilder = {
  path: "",
  method: "get",
  build: (context) => ({
    operationId: "listKeys",
    summary: "List the caller's keys",
    description: "Newest first; revoked and expired keys included, with their status.",
    tags: ["API keys"],
    security: sessionOnly,
    responses: {
      "200": successResponse(context, "The caller's keys", "KeyList"),
      ...errorResponses(...guardedErrors),
    },
  }),
};
