/**
 * `@keyward/core/openapi`: the OpenAPI 3.1 document of an instance as a feature module. Listed,
 * `keyward.openapi()` returns the document of the endpoints as configured (base path, scopes and
 * tiers as enums, error bodies, rate-limit headers, security schemes, every listed feature's paths)
 * and the host routes named in `routes`, generated from the schemas that validate requests; with
 * `serve: true`, `GET {basePath}/openapi.json` answers it. See docs/openapi.md.
 *
 * @example
 * import { openapi } from "@keyward/core/openapi";
 * const keyward = createKeyward({ store, scopes, tiers, jwt, features: [openapi({ serve: true })] });
 * writeFileSync("openapi.json", JSON.stringify(keyward.openapi(), null, 2));
 */
import type { KeywardFeature } from "../../feature-interface/feature.js";
import type { OpenApiDocument } from "../../feature-interface/openapi-types.js";
import { buildOpenApiDocument } from "./build-document.js";
import { checkOpenApiOptions, type OpenApiOptions } from "./options.js";
import { openapiDocumentPath } from "./paths/openapi-document.js";
import { documentSubpath, serveDocument } from "./serve-document.js";

export type {
  HeaderObject,
  HttpMethod,
  JsonSchema,
  OpenApiDocument,
  OperationObject,
  PathItemObject,
  ResponseObject,
} from "../../feature-interface/openapi-types.js";
export type { OpenApiOptions, OpenApiRoute, OpenApiSchemaSource } from "./options.js";

/** `keyward.openapi()`: a fresh copy of the document on each call. */
export type OpenApiApi = () => OpenApiDocument;

/** Throws a `TypeError` naming the field for a malformed `options`. */
export function openapi(options: OpenApiOptions = {}): KeywardFeature<"openapi", OpenApiApi> {
  checkOpenApiOptions(options);
  return {
    name: "openapi",
    install: (kernel) => {
      // Built on first use and kept: the configuration it describes cannot change.
      let json: string | undefined;
      const documentJson = () => {
        if (json === undefined) {
          const { instance, featurePaths } = kernel.describe();
          const paths = options.serve ? [...featurePaths, openapiDocumentPath] : featurePaths;
          json = JSON.stringify(buildOpenApiDocument({ ...instance, options }, paths));
        }
        return json;
      };
      return {
        api: () => JSON.parse(documentJson()) as OpenApiDocument,
        // Served: built at start, so that a bad `routes` entry fails the start, not a request.
        ...(options.serve ? { ready: () => void documentJson() } : {}),
        ...(options.serve
          ? {
              routes: [
                {
                  subpath: documentSubpath,
                  handle: async (request: Request) => serveDocument(request.method, documentJson),
                },
              ],
            }
          : {}),
      };
    },
  };
}
