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
