import { maxPageSize } from "../../../api/list-cursor.js";
import { errorResponses, guardedErrors, successResponse } from "../responses.js";
import { keyIdParameter, type PathBuilder, sessionOnly } from "./path-builder.js";

/** `GET {basePath}/{key_id}/events`: served only with `events` configured. */
export const keyEventsPath: PathBuilder = {
  path: "/{key_id}/events",
  method: "get",
  enabled: (context) => context.events,
  build: (context) => ({
    operationId: "keyEvents",
    summary: "A key's audit log",
    description:
      "What happened to the key, newest first, one page at a time: creation, rotations, updates, disabling, enabling and revocation, each with who did it. Who may read the key's usage may read its events.",
    tags: ["API keys"],
    security: sessionOnly,
    parameters: [
      keyIdParameter,
      {
        name: "limit",
        in: "query",
        description: "Events per page; default 100.",
        schema: { type: "integer", minimum: 1, maximum: maxPageSize },
      },
      {
        name: "cursor",
        in: "query",
        description: "The `nextCursor` of the previous page; omitted for the first.",
        schema: { type: "string" },
      },
      {
        name: "types",
        in: "query",
        description:
          "Only events of these types: repeat the parameter, or separate types with commas.",
        style: "form",
        explode: true,
        schema: {
          type: "array",
          items: { type: "string", enum: [...context.eventTypes.audited] },
        },
      },
    ],
    responses: {
      "200": successResponse(context, "One page of the key's events", "EventPage"),
      ...errorResponses(404, 422, ...guardedErrors),
    },
  }),
};
