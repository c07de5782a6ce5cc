import { maxPageSize } from "../../../api/list-cursor.js";
import type { ParameterObject } from "../../../feature-interface/openapi-types.js";
import { maxOwnerIdLength } from "../../../validation/owner-id.js";
import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { componentRef } from "../schemas/component-ref.js";
import { type PathBuilder, sessionOnly } from "./path-builder.js";

export const listKeysPath: PathBuilder = {
  path: "",
  method: "get",
  build: (context) => {
    const parameters: ParameterObject[] = [];
    if (context.organizations) {
      parameters.push({
        name: "organizationId",
        in: "query",
        description:
          "List this organization's keys instead of the caller's own (the caller must be a member whose role may list them).",
        schema: { type: "string", minLength: 1, maxLength: maxOwnerIdLength },
      });
    }
    parameters.push(
      {
        name: "limit",
        in: "query",
        description: `Answer one page of at most this many keys, as \`{ data, nextCursor }\`. Without it, every key, as \`{ data }\`.`,
        schema: { type: "integer", minimum: 1, maximum: maxPageSize },
      },
      {
        name: "cursor",
        in: "query",
        description: "With `limit`: the `nextCursor` of the previous page; omitted for the first.",
        schema: { type: "string" },
      },
    );
    const ok = successResponse(context, "The caller's keys", undefined);
    return {
      operationId: "listKeys",
      summary: "List the caller's keys",
      description: "Newest first; revoked and expired keys included, with their status.",
      tags: ["API keys"],
      security: sessionOnly,
      parameters,
      responses: {
        "200": {
          ...ok,
          content: {
            "application/json": {
              // A paged answer is a `KeyList` too (responses are open to new fields), so anyOf.
              schema: { anyOf: [componentRef("KeyList"), componentRef("KeyPage")] },
            },
          },
        },
        ...errorResponses(422, ...guardedErrors),
      },
    };
  },
};
