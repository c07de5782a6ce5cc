import type { PathBuilder } from "./path-builder.js";

/** `GET {basePath}/openapi.json`, listed by `openapi({ serve: true })`: this document, no credentials. */
export const openapiDocumentPath: PathBuilder = {
  path: "/openapi.json",
  method: "get",
  build: () => ({
    operationId: "getOpenApiDocument",
    summary: "This document",
    tags: ["API keys"],
    security: [],
    responses: {
      "200": {
        description: "The OpenAPI 3.1 document of these endpoints, as configured",
        content: { "application/json": { schema: { type: "object" } } },
      },
    },
  }),
};
