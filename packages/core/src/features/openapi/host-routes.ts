/**
 * The host's own guarded routes (`openapi.routes`): each one's security as its guard accepts it,
 * the scopes an API key needs (as the requirement's roles, which OpenAPI 3.1 allows for any
 * scheme), the rate-limit headers on what it answers, and the guard's refusals.
 */

import type {
  HttpMethod,
  OperationObject,
  ParameterObject,
  PathItemObject,
} from "../../feature-interface/openapi-types.js";
import type { OpenApiBuildContext } from "./build-context.js";
import { securitySchemeNames } from "./components.js";
import type { OpenApiRoute } from "./options.js";
import { errorResponses, guardedErrors, successResponse } from "./responses.js";
import { toJsonSchema } from "./schema-source.js";

const methods = new Set<HttpMethod>(["get", "put", "post", "delete", "patch", "head", "options"]);

export function addHostRoutes(
  context: OpenApiBuildContext,
  paths: Record<string, PathItemObject>,
): void {
  for (const route of context.options.routes ?? []) {
    const method = route.method.toLowerCase() as HttpMethod;
    if (!methods.has(method)) {
      throw new TypeError(`Keyward: \`openapi.routes\` has an unknown method "${route.method}"`);
    }
    const path = openApiPath(route.path);
    paths[path] ??= {};
    const item = paths[path];
    if (item[method]) {
      throw new TypeError(`Keyward: \`openapi.routes\` lists ${route.method} ${route.path} twice`);
    }
    item[method] = hostOperation(context, route, method, path);
  }
}

/** `/profiles/:slug` (Express, Fastify, Hono) → `/profiles/{slug}`. */
export function openApiPath(template: string): string {
  return template.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function hostOperation(
  context: OpenApiBuildContext,
  route: OpenApiRoute,
  method: HttpMethod,
  path: string,
): OperationObject {
  const scopes = [...(route.scopes ?? [])];
  const accept = route.accept ?? "any";
  const security: Record<string, string[]>[] = [];
  if (accept !== "session") security.push({ [securitySchemeNames.apiKey]: scopes });
  if (accept !== "api-key") security.push({ [securitySchemeNames.session]: [] });
  const parameters: ParameterObject[] = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name: name as string,
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  const success = successResponse(context, route.summary ?? "The route's answer", undefined);
  if (route.response) {
    success.content = {
      "application/json": { schema: toJsonSchema(route.response, "output") },
    };
  }
  const scopeNote =
    scopes.length === 0 ? "" : ` An API key needs ${scopes.map((s) => `\`${s}\``).join(", ")}.`;
  return {
    operationId: operationId(method, path),
    ...(route.summary === undefined ? {} : { summary: route.summary }),
    description: `Guarded by Keyward.${scopeNote}${accept === "any" ? " A session JWT acts as its user with every scope." : ""}`,
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(route.requestBody === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: toJsonSchema(route.requestBody, "input") },
            },
          },
        }),
    security,
    responses: {
      "200": success,
      // A body parser answers these before the route runs (malformed JSON, too large, wrong type).
      ...(route.requestBody === undefined ? {} : errorResponses(400, 413, 415)),
      ...errorResponses(...guardedErrors),
    },
  };
}

/** `get` + `/api/v1/profiles/{slug}` → `getApiV1ProfilesBySlug`. */
function operationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      const parameter = /^\{(.+)\}$/.exec(segment);
      return parameter ? `By ${parameter[1]}` : segment;
    })
    .join(" ")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
}
