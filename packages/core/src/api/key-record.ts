import type { Owner } from "../organizations/owner.js";
import type { StoredKey } from "../storage/key-store.js";

export type KeyStatus = "active" | "expired" | "revoked";

/** A key as the API shows it: never the secret, never the hash; times as ISO 8601 UTC or null. */
export interface KeyRecord {
  id: string;
  name: string;
  scopes: string[];
  tier: string;
  status: KeyStatus;
  hint: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Whose key it is; present when `organizations` is configured. */
  owner?: Owner;
  /** The user who created it; present with `owner`. */
  createdBy?: string;
}

/** A key record together with its full secret: only the create and rotate responses carry one. */
export interface KeyWithSecret extends KeyRecord {
  key: string;
}

/** Status is computed from the clock on every read, so a key expires without any write. */
export function keyStatus(key: StoredKey, now: number): KeyStatus {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && key.expiresAt <= now) return "expired";
  return "active";
}

/**
 * @param withOwner add `owner` and `createdBy` (with `organizations` configured); without it the
 *   record has exactly the contract's fields.
 */
export function toKeyRecord(
  key: StoredKey,
  now: number,
  lastUsedAt: number | null,
  withOwner = false,
): KeyRecord {
  const record: KeyRecord = {
    id: key.id,
    name: key.name,
    scopes: [...key.scopes],
    tier: key.tier,
    status: keyStatus(key, now),
    hint: key.hint,
    createdAt: isoTime(key.createdAt),
    expiresAt: key.expiresAt === null ? null : isoTime(key.expiresAt),
    lastUsedAt: lastUsedAt === null ? null : isoTime(lastUsedAt),
    revokedAt: key.revokedAt === null ? null : isoTime(key.revokedAt),
  };
  if (withOwner) {
    record.owner = { type: key.ownerType, id: key.ownerId };
    record.createdBy = key.createdBy;
  }
  return record;
}

export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
