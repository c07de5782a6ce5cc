import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { type PathBuilder, sessionOnly } from "./path-builder.js";

export const listScopesPath: PathBuilder = {
  path: "/scopes",
  method: "get",
  build: (context) => ({
    operationId: "listScopes",
    summary: "List the scopes a key can be granted",
    tags: ["API keys"],
    security: sessionOnly,
    responses: {
      "200": successResponse(context, "Every configured scope with its description", "ScopeList"),
      ...errorResponses(...guardedErrors),
    },
  }),
};
