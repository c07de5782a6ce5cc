import type { StandardJSONSchemaV1 } from "@standard-schema/spec";
import type { AcceptedCredentials } from "../../auth/principal.js";
import type { JsonSchema } from "../../feature-interface/openapi-types.js";

/**
 * A body's schema for the document: a JSON Schema object, or any Standard JSON Schema (an arktype
 * type, a Zod 4 or Valibot schema with its JSON Schema support), converted for draft 2020-12.
 */
export type OpenApiSchemaSource = JsonSchema | StandardJSONSchemaV1;

/**
 * One of the host's own routes guarded by Keyward, to describe beside the key-management
 * endpoints: its security (API key, session JWT or both), the scopes it needs, and the
 * rate-limit headers and error answers the guard adds.
 */
export interface OpenApiRoute {
  /** `"GET"`, `"PUT"`, … */
  method: string;
  /** The route template, as the host's router writes it: `/api/v1/profiles/:slug` or `{slug}`. */
  path: string;
  /** Scopes the guard requires (listed as the API-key security requirement's roles). */
  scopes?: readonly string[];
  /** What the guard accepts; default `"any"` (an API key or a session JWT), as the guard's default. */
  accept?: AcceptedCredentials;
  summary?: string;
  /** The JSON body the route reads, when it reads one. */
  requestBody?: OpenApiSchemaSource;
  /** The body of its 200 response; without it, "any JSON". */
  response?: OpenApiSchemaSource;
}

/** What `openapi()` takes. Every field is optional. */
export interface OpenApiOptions {
  /**
   * Answer `GET {basePath}/openapi.json` with the document, without credentials. Default false:
   * that path then answers exactly as it did before (it names no endpoint).
   */
  serve?: boolean;
  /** The document's `info`; default title "Keyward API keys", version "0.1.0". */
  info?: { title?: string; version?: string; description?: string };
  /** The document's `servers`; default `[{ url: "/" }]`: the server the document is read from. */
  servers?: { url: string; description?: string }[];
  /** The host's guarded routes, to describe too. */
  routes?: readonly OpenApiRoute[];
}

/**
 * Throws a `TypeError` naming the field for a malformed `options`, when the feature is created. A
 * route's method and path are checked when the document is built: at start with `serve: true`.
 */
export function checkOpenApiOptions(options: unknown): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError("Keyward: openapi() takes an object like { serve: true, routes: [...] }");
  }
  const { serve, routes } = options as OpenApiOptions;
  if (serve !== undefined && typeof serve !== "boolean") {
    throw new TypeError(`Keyward: \`openapi.serve\` must be a boolean, got ${typeof serve}`);
  }
  if (routes !== undefined && !Array.isArray(routes)) {
    throw new TypeError("Keyward: `openapi.routes` must be a list of { method, path, scopes? }");
  }
}
