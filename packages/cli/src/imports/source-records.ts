/**
 * What every import source hands the import command: the records in `keyward.imports`' shape, each
 * with where it came from (a row id, a line), and the rows it could not turn into a record at all,
 * with why. An import with any of those writes nothing, as one with a record Keyward refuses.
 */
export interface SourceRecords {
  records: SourceRecord[];
  /** Rows the source could not map (a refill Keyward cannot express, unreadable JSON…). */
  unmapped: { source: string; reason: string }[];
}

export interface SourceRecord {
  /** Where it came from, for people: `apikey row k_123`, `line 7`, `keys[3]`. */
  source: string;
  record: Record<string, unknown>;
}

/**
 * Scopes from a better-auth style permission statement `{ resource: [action, ...] }`: each pair
 * `resource:action`, in the order given.
 */
export function scopesOfPermissions(permissions: unknown): string[] {
  if (permissions === null || permissions === undefined) return [];
  if (typeof permissions !== "object" || Array.isArray(permissions)) {
    throw new Error("permissions must be an object of resource → actions");
  }
  const scopes: string[] = [];
  for (const [resource, actions] of Object.entries(permissions)) {
    if (!Array.isArray(actions) || actions.some((action) => typeof action !== "string")) {
      throw new Error(`permissions.${resource} must be a list of actions`);
    }
    for (const action of actions) scopes.push(`${resource}:${action}`);
  }
  return scopes;
}

/** An ISO 8601 string of a time a driver or a JSON file gives (a Date, epoch ms, text), or null. */
export function isoTime(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  const date =
    value instanceof Date
      ? value
      : typeof value === "number" || typeof value === "string"
        ? new Date(value)
        : null;
  if (date === null || Number.isNaN(date.getTime())) throw new Error(`${field} is not a time`);
  return date.toISOString();
}
