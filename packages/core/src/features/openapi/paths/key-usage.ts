import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { keyIdParameter, type PathBuilder, sessionOnly } from "./path-builder.js";

export const keyUsagePath: PathBuilder = {
  path: "/{key_id}/usage",
  method: "get",
  build: (context) => ({
    operationId: "keyUsage",
    summary: "A key's usage",
    description: "Total requests, last use, and counts per method and route and per UTC day.",
    tags: ["API keys"],
    security: sessionOnly,
    parameters: [keyIdParameter],
    responses: {
      "200": successResponse(context, "The key's usage", "UsageReport"),
      ...errorResponses(404, ...guardedErrors),
    },
  }),
};
