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
 * Labels already made, by route template and then by the request's own method. A guard calls
 * `routeWithMethod` on every request with one of a handful of templates and methods; answering the
 * same string each time spares the concatenation, and the maps that count usage by label (the usage
 * buffer, the route splitter) find a string whose hash V8 has already computed instead of hashing a
 * fresh one. Bounded: only the standard methods as given (uppercase) are kept, and only templates
 * of a plausible length, at most `maxLabelledRoutes` of them (a host whose template holds a request's
 * own path, such as Express's `baseUrl` under a parameter, gets a fresh label past that).
 */
const labels = new Map<string, Map<string, string>>();
const maxLabelledRoutes = 500;
const maxLabelledRouteLength = 256;

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
  // A label made before: two lookups of strings the guard holds (their hashes computed once).
  const known = labels.get(route)?.get(method);
  if (known !== undefined) return known;
  if (route.includes(" ")) return route;
  if (!standardMethods.has(method) || route.length > maxLabelledRouteLength) {
    return `${requestMethodLabel(method)} ${route}`;
  }
  let byMethod = labels.get(route);
  if (byMethod === undefined) {
    if (labels.size >= maxLabelledRoutes) labels.clear();
    byMethod = new Map();
    labels.set(route, byMethod);
  }
  const label = `${method} ${route}`;
  byMethod.set(method, label);
  return label;
}
