/** What a configuration value is, for a `TypeError` that says what was given instead. */
export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}
