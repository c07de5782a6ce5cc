/**
 * A `StoredKey` as the fields of a Redis hash, and back. Null times and tiers are absent fields.
 * Records written before organizations have no `ownerType` and no `createdBy`: they were users'
 * own keys, created by their owner, and read back so (no migration rewrites them). `ownerType` is
 * written only for an organization's key, so a user's record keeps exactly its old shape. Likewise
 * `environment` exists only on keys that have one: records written before read as a key of the
 * environment its hint's prefix names; `enabledAt` only on keys enabled again after a disable;
 * feature fields only when set, each as its own hash field (`field:<name>`).
 */
import type {
  FeatureFieldChanges,
  FeatureFields,
  JsonValue,
  KeyLimits,
  KeyMetadata,
  KeyUpdate,
  StoredKey,
} from "@keyward/core";

export function toKeyFields(key: StoredKey): string[] {
  const fields = [
    "id",
    key.id,
    "ownerId",
    key.ownerId,
    "name",
    key.name,
    "scopes",
    JSON.stringify(key.scopes),
    "tier",
    key.tier,
    "secretHash",
    key.secretHash,
    "hint",
    key.hint,
    "createdAt",
    String(key.createdAt),
    "createdBy",
    key.createdBy,
    "version",
    String(key.version),
  ];
  if (key.ownerType !== "user") fields.push("ownerType", key.ownerType);
  for (const field of [
    "expiresAt",
    "revokedAt",
    "rotatedAt",
    "disabledAt",
    "previousSecretExpiresAt",
  ] as const) {
    const value = key[field];
    if (value !== null) fields.push(field, String(value));
  }
  if (key.ownerTier !== null) fields.push("ownerTier", key.ownerTier);
  if (key.previousSecretHash !== null) fields.push("previousSecretHash", key.previousSecretHash);
  if (key.metadata !== null) fields.push("metadata", JSON.stringify(key.metadata));
  if (key.limits != null) fields.push("limits", JSON.stringify(key.limits));
  if (key.environment != null) fields.push("environment", key.environment);
  if (key.enabledAt != null) fields.push("enabledAt", String(key.enabledAt));
  for (const [name, value] of Object.entries(key.fields ?? {})) {
    fields.push(featureFieldPrefix + name, JSON.stringify(value));
  }
  return fields;
}

/** A flat `HGETALL` reply → the record, or null for an empty reply (no such key). */
export function fromKeyFields(flat: readonly string[] | null | undefined): StoredKey | null {
  if (!flat || flat.length === 0) return null;
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  const time = (name: string) => (fields[name] === undefined ? null : Number(fields[name]));
  return {
    id: fields.id!,
    // Records written before versions have none: they read as a new key's first version.
    version: fields.version === undefined ? 1 : Number(fields.version),
    ownerType: fields.ownerType === "organization" ? "organization" : "user",
    ownerId: fields.ownerId!,
    createdBy: fields.createdBy ?? fields.ownerId!,
    name: fields.name!,
    scopes: JSON.parse(fields.scopes!) as string[],
    tier: fields.tier!,
    secretHash: fields.secretHash!,
    hint: fields.hint!,
    createdAt: Number(fields.createdAt),
    expiresAt: time("expiresAt"),
    revokedAt: time("revokedAt"),
    rotatedAt: time("rotatedAt"),
    previousSecretHash: fields.previousSecretHash ?? null,
    previousSecretExpiresAt: time("previousSecretExpiresAt"),
    ownerTier: fields.ownerTier ?? null,
    disabledAt: time("disabledAt"),
    metadata: fields.metadata === undefined ? null : (JSON.parse(fields.metadata) as KeyMetadata),
    // Absent unless set, so records without limits read exactly as before.
    ...(fields.limits === undefined ? {} : { limits: JSON.parse(fields.limits) as KeyLimits }),
    ...(fields.environment === undefined ? {} : { environment: fields.environment }),
    ...(fields.enabledAt === undefined ? {} : { enabledAt: Number(fields.enabledAt) }),
    ...featureFieldsOf(fields),
  };
}

/**
 * An update as two flat lists for the update script: fields to set (name/value pairs) and fields
 * to delete (null metadata, an enabled key, no allowlist: absent fields, as in `toKeyFields`).
 */
export function toUpdateFields(changes: KeyUpdate): { set: string[]; unset: string[] } {
  const set: string[] = [];
  const unset: string[] = [];
  if (changes.name !== undefined) set.push("name", changes.name);
  if (changes.scopes !== undefined) set.push("scopes", JSON.stringify(changes.scopes));
  if (changes.metadata !== undefined) {
    if (changes.metadata === null) unset.push("metadata");
    else set.push("metadata", JSON.stringify(changes.metadata));
  }
  if (changes.disabledAt !== undefined) {
    if (changes.disabledAt === null) unset.push("disabledAt");
    else set.push("disabledAt", String(changes.disabledAt));
  }
  if (changes.enabledAt !== undefined) set.push("enabledAt", String(changes.enabledAt));
  if (changes.limits !== undefined) {
    if (changes.limits === null) unset.push("limits");
    else set.push("limits", JSON.stringify(changes.limits));
  }
  const featureChanges = toFeatureFieldChanges(changes.fields);
  return { set: [...set, ...featureChanges.set], unset: [...unset, ...featureChanges.unset] };
}

/**
 * Feature fields are hash fields of their own, each named by this prefix and the field's name and
 * holding its JSON text: the store keeps them without knowing them, and an update sets or deletes
 * each one in the same script as the rest, with no JSON to merge in Lua (whose encoder cannot tell
 * an empty list from an empty object).
 */
const featureFieldPrefix = "field:";

/** The record's feature fields, from its hash: `{ fields }`, or nothing when it has none. */
function featureFieldsOf(hash: Record<string, string>): { fields?: FeatureFields } {
  const fields: Record<string, JsonValue> = {};
  let any = false;
  for (const [name, value] of Object.entries(hash)) {
    if (!name.startsWith(featureFieldPrefix)) continue;
    fields[name.slice(featureFieldPrefix.length)] = JSON.parse(value) as JsonValue;
    any = true;
  }
  return any ? { fields } : {};
}

/** Changes to feature fields as hash fields to set (name/value pairs) and to delete. */
export function toFeatureFieldChanges(changes: FeatureFieldChanges | undefined): {
  set: string[];
  unset: string[];
} {
  const set: string[] = [];
  const unset: string[] = [];
  for (const [name, value] of Object.entries(changes ?? {})) {
    if (value === null) unset.push(featureFieldPrefix + name);
    else if (value !== undefined) set.push(featureFieldPrefix + name, JSON.stringify(value));
  }
  return { set, unset };
}
