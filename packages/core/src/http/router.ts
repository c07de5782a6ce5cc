import { KeywardError } from "../errors/keyward-error.js";
import type { FeatureEndpoint } from "../feature-interface/feature.js";
import type { EndpointHandler } from "./routes/route-context.js";

export type RouteMatch =
  | { handler: EndpointHandler; keyId?: string }
  | { error: KeywardError }
  /** An `OPTIONS` request for a path that exists: the methods it takes. */
  | { options: string };

/** Methods by path shape: `""`, `"/scopes"`, `"/{key_id}"`, `"/{key_id}/rotate"`, … */
type RouteTable = Map<string, Map<string, EndpointHandler>>;

export interface Router {
  /**
   * Matches a path already stripped of the base path (`""`, `"/scopes"`, `"/key_x/rotate"`, ...).
   * An unknown path is 404; a known path with another method is 405 with `Allow`; `OPTIONS` on a
   * known path lists its methods (a browser's CORS preflight asks it, without credentials).
   * `scopes` is reserved: it is never taken for a key id.
   */
  match(subpath: string, method: string): RouteMatch;
  /** Whether a path shape is served, with this method: `has("/{key_id}/events", "GET")`. */
  has(shape: string, method: string): boolean;
}

/**
 * The kernel's endpoints, then the features' (a feature's method on a key path is listed after the
 * kernel's, so `Allow` only grows: `DELETE, PATCH`). Two endpoints for one path and method is a
 * configuration error.
 */
export function createRouter(
  kernel: readonly FeatureEndpointLike[],
  features: readonly FeatureEndpoint[],
): Router {
  const table: RouteTable = new Map();
  for (const endpoint of [...kernel, ...features]) {
    const methods = table.get(endpoint.path) ?? new Map<string, EndpointHandler>();
    if (methods.has(endpoint.method)) {
      throw new TypeError(
        `Keyward: two endpoints answer ${endpoint.method} {basePath}${endpoint.path}`,
      );
    }
    methods.set(endpoint.method, endpoint.handle);
    table.set(endpoint.path, methods);
  }
  return {
    has: (shape, method) => table.get(shape)?.has(method) ?? false,
    match(subpath, method) {
      const segments = subpath.split("/").filter((segment) => segment !== "");
      const { shape, keyId } = shapeOf(segments);
      const methods = shape === undefined ? undefined : table.get(shape);
      if (!methods) return { error: new KeywardError("route_not_found", "Not Found") };
      if (method === "OPTIONS") return { options: [...methods.keys(), "OPTIONS"].join(", ") };
      const handler = methods.get(method);
      if (!handler) {
        return {
          error: new KeywardError("method_not_allowed", "Method Not Allowed", {
            headers: { Allow: [...methods.keys()].join(", ") },
          }),
        };
      }
      return keyId === undefined ? { handler } : { handler, keyId: safeDecode(keyId) };
    },
  };
}

/** An endpoint of the kernel's, as a feature's is written. */
export interface FeatureEndpointLike {
  path: string;
  method: string;
  handle: EndpointHandler;
}

function shapeOf(segments: readonly string[]): { shape?: string; keyId?: string } {
  if (segments.length === 0) return { shape: "" };
  if (segments.length === 1 && segments[0] === "scopes") return { shape: "/scopes" };
  if (segments.length === 1) return { shape: "/{key_id}", keyId: segments[0] };
  if (segments.length === 2) return { shape: `/{key_id}/${segments[1]}`, keyId: segments[0] };
  return {};
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
