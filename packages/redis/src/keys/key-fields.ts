/** A `StoredKey` as the fields of a Redis hash, and back. Null times and tiers are absent fields. */
import type { KeyLimits, StoredKey } from "@keyward/core";

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
  ];
  for (const field of ["expiresAt", "revokedAt", "rotatedAt"] as const) {
    const value = key[field];
    if (value !== null) fields.push(field, String(value));
  }
  if (key.ownerTier !== null) fields.push("ownerTier", key.ownerTier);
  if (key.limits != null) fields.push("limits", JSON.stringify(key.limits));
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
    ownerId: fields.ownerId!,
    name: fields.name!,
    scopes: JSON.parse(fields.scopes!) as string[],
    tier: fields.tier!,
    secretHash: fields.secretHash!,
    hint: fields.hint!,
    createdAt: Number(fields.createdAt),
    expiresAt: time("expiresAt"),
    revokedAt: time("revokedAt"),
    rotatedAt: time("rotatedAt"),
    ownerTier: fields.ownerTier ?? null,
    // Absent unless set, so records without limits read exactly as before.
    ...(fields.limits === undefined ? {} : { limits: JSON.parse(fields.limits) as KeyLimits }),
  };
}
