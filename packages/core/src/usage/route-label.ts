/**
 * A route label is what `verify` is told about the route: `"GET /profiles/:slug"`, or a bare
 * template. Usage is stored by method and route, so a label is split, but only when counts are
 * written, not on every request.
 */
export function splitRouteLabel(label: string | undefined): { method: string; route: string } {
  if (!label) return { method: "ANY", route: "*" };
  const space = label.indexOf(" ");
  if (space === -1) return { method: "ANY", route: label };
  return { method: label.slice(0, space).toUpperCase(), route: label.slice(space + 1).trim() };
}

/** Remembers recent splits: hosts use a handful of route labels, each on many requests. */
export function cachedRouteLabelSplitter(maxEntries = 1_000) {
  const cache = new Map<string, { method: string; route: string }>();
  return (label: string | undefined) => {
    const key = label ?? "";
    let split = cache.get(key);
    if (!split) {
      split = splitRouteLabel(label);
      if (cache.size >= maxEntries) cache.clear();
      cache.set(key, split);
    }
    return split;
  };
}

/** RFC 9110's methods and PATCH: the methods a request's own method is recorded under. */
const standardMethods = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "CONNECT",
  "OPTIONS",
  "TRACE",
  "PATCH",
]);

/**
 * A request's method as usage records it, when the route label comes without one. Some Fetch
 * servers (Bun, Deno) accept any token as a method, so the request would choose how many usage rows
 * exist and how long each is; any other method is counted as `OTHER`. A host that serves WebDAV
 * methods names them in its route labels (`"PROPFIND /files/*"`), which are kept as given.
 *
 * @example
 * requestMethodLabel("get"); // "GET"
 * requestMethodLabel("X".repeat(5_000)); // "OTHER"
 */
export function requestMethodLabel(method: string): string {
  const upper = method.toUpperCase();
  return standardMethods.has(upper) ? upper : "OTHER";
}

/**
 * The usage label of a route: the template as given when it names its method
 * (`"PUT /profiles/:slug"`), else the request's method in front of it. Guards call this with the
 * template their framework matched, so every adapter labels usage the same way.
 *
 * @example
 * routeWithMethod("get", "/profiles/:slug"); // "GET /profiles/:slug"
 * routeWithMethod("GET", "PUT /profiles/:slug"); // "PUT /profiles/:slug"
 */
export function routeWithMethod(method: string, route: string): string {
  return route.includes(" ") ? route : `${requestMethodLabel(method)} ${route}`;
}
