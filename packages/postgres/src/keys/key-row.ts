import type { FeatureFields, KeyLimits, KeyMetadata, StoredKey } from "@keyward/core";
import { toEpochMs } from "../schema/epoch-ms.js";

/** The select list every key query returns, shaped so each driver hands back the same values. */
export const keyColumns = [
  "id",
  "version",
  "owner_type",
  "owner_id",
  // The store always writes created_by; a row written without it (by hand) reads as the owner's.
  "COALESCE(created_by, owner_id) AS created_by",
  "name",
  "scopes::text AS scopes",
  "tier",
  "secret_hash",
  "hint",
  `${toEpochMs("created_at")} AS created_at`,
  `${toEpochMs("expires_at")} AS expires_at`,
  `${toEpochMs("revoked_at")} AS revoked_at`,
  `${toEpochMs("rotated_at")} AS rotated_at`,
  "previous_secret_hash",
  `${toEpochMs("previous_secret_expires_at")} AS previous_secret_expires_at`,
  "owner_tier",
  `${toEpochMs("disabled_at")} AS disabled_at`,
  "metadata::text AS metadata",
  "limits::text AS limits",
  "environment",
  `${toEpochMs("enabled_at")} AS enabled_at`,
  "fields::text AS fields",
].join(", ");

export interface KeyRow {
  id: string;
  /** bigint: a string from most drivers. */
  version: number | string;
  owner_type: string;
  owner_id: string;
  created_by: string;
  name: string;
  /** jsonb sent back as text, parsed here, so no driver's JSON handling is relied on. */
  scopes: string;
  tier: string;
  secret_hash: string;
  hint: string;
  created_at: number | string;
  expires_at: number | string | null;
  revoked_at: number | string | null;
  rotated_at: number | string | null;
  previous_secret_hash: string | null;
  previous_secret_expires_at: number | string | null;
  owner_tier: string | null;
  disabled_at: number | string | null;
  /** jsonb as text, like `scopes`. */
  metadata: string | null;
  limits: string | null;
  environment: string | null;
  enabled_at: number | string | null;
  /** jsonb as text, like `scopes`. */
  fields: string | null;
}

const time = (value: number | string | null) => (value === null ? null : Number(value));

export function toStoredKey(row: KeyRow): StoredKey {
  return {
    id: row.id,
    version: Number(row.version),
    ownerType: row.owner_type === "organization" ? "organization" : "user",
    ownerId: row.owner_id,
    createdBy: row.created_by,
    name: row.name,
    scopes: JSON.parse(row.scopes) as string[],
    tier: row.tier,
    secretHash: row.secret_hash,
    hint: row.hint,
    createdAt: Number(row.created_at),
    expiresAt: time(row.expires_at),
    revokedAt: time(row.revoked_at),
    rotatedAt: time(row.rotated_at),
    previousSecretHash: row.previous_secret_hash,
    previousSecretExpiresAt: time(row.previous_secret_expires_at),
    ownerTier: row.owner_tier,
    disabledAt: time(row.disabled_at),
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as KeyMetadata),
    // Absent unless set, so records without limits read exactly as before.
    ...(row.limits === null ? {} : { limits: JSON.parse(row.limits) as KeyLimits }),
    ...(row.environment === null ? {} : { environment: row.environment }),
    ...(row.enabled_at == null ? {} : { enabledAt: Number(row.enabled_at) }),
    ...(row.fields === null ? {} : { fields: JSON.parse(row.fields) as FeatureFields }),
  };
}
