/**
 * Assembles the OpenAPI 3.1 document of one Keyward instance as configured: the endpoints the
 * path builders say are enabled, then the paths the listed features contribute, each path's CORS
 * preflight, the host's guarded routes, and the components they refer to.
 */

import type {
  HttpMethod,
  OpenApiDocument,
  PathItemObject,
  ReferenceObject,
} from "../../feature-interface/openapi-types.js";
import type { OpenApiBuildContext } from "./build-context.js";
import { buildComponents } from "./components.js";
import { addHostRoutes } from "./host-routes.js";
import { pathBuilders } from "./paths/index.js";
import { keyIdParameter, type PathBuilder } from "./paths/path-builder.js";
import { requiredHeader } from "./responses.js";

export function buildOpenApiDocument(
  context: OpenApiBuildContext,
  featurePaths: readonly PathBuilder[] = [],
): OpenApiDocument {
  const paths: Record<string, PathItemObject> = {};
  for (const builder of [...pathBuilders, ...featurePaths]) {
    if (builder.enabled && !builder.enabled(context)) continue;
    const path = context.basePath + builder.path || "/";
    paths[path] ??= {};
    paths[path][builder.method] = builder.build(context);
  }
  // Every path under the base path answers a CORS preflight (the router does it for them all).
  for (const [path, item] of Object.entries(paths)) addPreflight(context, path, item);
  addHostRoutes(context, paths);

  const info = context.options.info ?? {};
  return {
    openapi: "3.1.0",
    info: {
      title: info.title ?? "Keyward API keys",
      version: info.version ?? "0.1.0",
      ...(info.description === undefined ? {} : { description: info.description }),
    },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    // Paths are absolute (the base path included): by default, the server this document is read
    // from, said explicitly (linters such as Redocly's refuse a document without servers).
    servers: context.options.servers ?? [
      { url: "/", description: "The server that serves this document" },
    ],
    tags: [{ name: "API keys", description: "Create, list, rotate, inspect and revoke API keys" }],
    paths,
    components: buildComponents(context),
  };
}

/** The parameter each template variable of the key paths stands for. */
const pathParameters: Record<string, ReferenceObject> = { key_id: keyIdParameter };

function addPreflight(context: OpenApiBuildContext, path: string, item: PathItemObject): void {
  const methods = (Object.keys(item) as HttpMethod[]).filter((key) => key !== "options");
  const first = item[methods[0] as HttpMethod];
  // Every operation of a templated path declares its variables, the preflight too (OpenAPI 3.1,
  // "Path Templating"; linters refuse a path parameter left undeclared).
  const parameters = [...path.matchAll(/\{([^}]+)\}/g)].flatMap(([, name]) => {
    const parameter = pathParameters[name!];
    return parameter ? [parameter] : [];
  });
  item.options = {
    operationId: `${first?.operationId ?? "path"}Preflight`,
    summary: "CORS preflight",
    description: `Answered before authentication: \`Allow: ${[...methods.map((m) => m.toUpperCase()), "OPTIONS"].join(", ")}\`. CORS headers are the host's to add.`,
    tags: ["API keys"],
    ...(parameters.length > 0 ? { parameters } : {}),
    security: [],
    responses: {
      "204": {
        description: "The methods this path takes",
        headers: { Allow: requiredHeader(context, "Allow") },
      },
    },
  };
}
