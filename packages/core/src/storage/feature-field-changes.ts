import type { FeatureFieldChanges, FeatureFields, JsonValue } from "./key-store.js";

/**
 * A record's feature fields after `changes` (a value sets, null removes, others are kept), as the
 * spread of a record: `{ fields }`, or nothing when none are left. For a store that keeps a record
 * whole (in memory, as one JSON value) and applies `KeyUpdate.fields` / `KeyRotation.fields` itself.
 *
 * @example
 * const updated = { ...key, ...withFields(key.fields, update.fields) };
 */
export function withFields(
  current: FeatureFields | undefined,
  changes: FeatureFieldChanges | undefined,
): { fields?: FeatureFields } {
  const fields: Record<string, JsonValue> = { ...current };
  for (const [name, value] of Object.entries(changes ?? {})) {
    if (value === null) delete fields[name];
    else if (value !== undefined) fields[name] = value;
  }
  return Object.keys(fields).length === 0 ? {} : { fields };
}
