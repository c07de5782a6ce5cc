import { type KeyField, shownFields } from "../keys/key-field.js";
import type { Owner } from "../keys/owner.js";
import type { UseFieldValues } from "../keys/use-fields.js";
import type { KeyMetadata, StoredKey } from "../storage/key-store.js";

export type KeyStatus = "active" | "disabled" | "expired" | "revoked";

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
  /** The host's data about the key; present only when it has some (records stay the contract's). */
  metadata?: KeyMetadata;
  /**
   * Whose key it is; present on an organization's key only (a user's own key is the caller's, and
   * its record keeps exactly the contract's fields).
   */
  owner?: Owner;
  /** The member who created an organization's key; present with `owner`. */
  createdBy?: string;
  /**
   * The key's environment (`test`); present only on a key outside the default environment (the
   * first of `environments`), as `owner` is only on an organization's key.
   */
  environment?: string;
  /**
   * Until when the secret a graceful rotation replaced still works; present only while it does
   * (a later rotation or a revocation ends it).
   */
  previousSecretExpiresAt?: string;
  /**
   * The listed features' key fields shown on records (`keys/key-field.ts`), each present only on
   * a key that has it: stored with the key, or written by its latest use that wrote any.
   */
  [featureField: string]: unknown;
}

/** A key record together with its full secret: only the create and rotate responses carry one. */
export interface KeyWithSecret extends KeyRecord {
  key: string;
}

/** Status is computed from the clock on every read, so a key expires without any write. */
export function keyStatus(key: StoredKey, now: number): KeyStatus {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && key.expiresAt <= now) return "expired";
  // Disabled ranks below expired: re-enabling an expired key would not bring it back.
  if (key.disabledAt !== null) return "disabled";
  return "active";
}

/** What a record shows beside the stored key, each part only when there is one. */
export interface RecordExtras {
  /** When the key was last used (epoch ms), or null if never. */
  lastUsedAt: number | null;
  /**
   * The key's environment, given only for a key outside the default one (so a record keeps
   * exactly the contract's fields until a key is made in another environment).
   */
  environment?: string | undefined;
  /** The fields written by the key's latest use that wrote any (`KeyField.fromUse`). */
  useFields?: UseFieldValues | undefined;
  /** The listed features' key fields, those with a record schema shown (`keys/key-field.ts`). */
  fields?: readonly KeyField[];
}

export function toKeyRecord(key: StoredKey, now: number, extras: RecordExtras): KeyRecord {
  const { lastUsedAt, environment, useFields } = extras;
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
  if (key.metadata !== null) record.metadata = key.metadata;
  if (inGrace(key, now)) record.previousSecretExpiresAt = isoTime(key.previousSecretExpiresAt!);
  if (key.ownerType === "organization") {
    record.owner = { type: key.ownerType, id: key.ownerId };
    record.createdBy = key.createdBy;
  }
  if (environment !== undefined) record.environment = environment;
  const fields = extras.fields ?? [];
  Object.assign(record, shownFields(key.fields, fields, "record"));
  return useFields === undefined
    ? record
    : Object.assign(record, shownFields(useFields, fields, "record"));
}

/** Whether the secret a graceful rotation replaced still works at `now`. */
export function inGrace(key: StoredKey, now: number): boolean {
  return (
    key.previousSecretExpiresAt !== null &&
    key.revokedAt === null &&
    now < key.previousSecretExpiresAt
  );
}

export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
