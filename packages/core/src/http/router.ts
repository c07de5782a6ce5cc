import { KeywardError } from "../errors/keyward-error.js";

export type EndpointName =
  | "list"
  | "create"
  | "scopes"
  | "rotate"
  | "usage"
  | "revoke"
  | "update"
  | "events";

export type RouteMatch =
  | { endpoint: EndpointName; keyId?: string }
  | { error: KeywardError }
  /** An `OPTIONS` request for a path that exists: the methods it takes. */
  | { options: string };

/** The six endpoints, by path shape under the base path, then by method. */
const collection = { GET: "list", POST: "create" } as const;
const scopes = { GET: "scopes" } as const;
const rotate = { POST: "rotate" } as const;
const usage = { GET: "usage" } as const;
/** With `events`: a key's audit log. */
const events = { GET: "events" } as const;
const item = { DELETE: "revoke" } as const;
/** With `keyUpdates`: `PATCH` on a key too (listed after `DELETE`, so `Allow` only grows). */
const updatableItem = { DELETE: "revoke", PATCH: "update" } as const;

export interface RouterOptions {
  /** Whether `PATCH /{key_id}` is served (`keyUpdates` in the config). */
  updates: boolean;
  /** Whether `GET /{key_id}/events` is served (`events` in the config); otherwise it is 404. */
  events?: boolean;
}

/**
 * Matches a path already stripped of the base path (`""`, `"/scopes"`, `"/key_x/rotate"`, ...).
 * An unknown path is 404; a known path with another method is 405 with `Allow`; `OPTIONS` on a
 * known path lists its methods (a browser's CORS preflight asks it, without credentials).
 * `scopes` is reserved: it is never taken for a key id.
 */
export function matchRoute(
  subpath: string,
  method: string,
  options: RouterOptions = { updates: false },
): RouteMatch {
  const segments = subpath.split("/").filter((segment) => segment !== "");
  let methods: Partial<Record<string, EndpointName>> | undefined;
  let keyId: string | undefined;
  if (segments.length === 0) methods = collection;
  else if (segments.length === 1 && segments[0] === "scopes") methods = scopes;
  else if (segments.length === 1)
    [methods, keyId] = [options.updates ? updatableItem : item, segments[0]];
  else if (segments.length === 2 && segments[1] === "rotate")
    [methods, keyId] = [rotate, segments[0]];
  else if (segments.length === 2 && segments[1] === "usage")
    [methods, keyId] = [usage, segments[0]];
  else if (segments.length === 2 && segments[1] === "events" && options.events)
    [methods, keyId] = [events, segments[0]];
  if (!methods) return { error: new KeywardError("route_not_found", "Not Found") };

  const endpoint = methods[method];
  if (method === "OPTIONS") return { options: [...Object.keys(methods), "OPTIONS"].join(", ") };
  if (!endpoint) {
    const allow = Object.keys(methods).join(", ");
    return {
      error: new KeywardError("method_not_allowed", "Method Not Allowed", {
        headers: { Allow: allow },
      }),
    };
  }
  return keyId === undefined ? { endpoint } : { endpoint, keyId: safeDecode(keyId) };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
