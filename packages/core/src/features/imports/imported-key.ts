/**
 * An import record as a stored key. Its id is derived from the secret's own SHA-256 (or the other
 * system's HMAC), so the same key imported again, from its plaintext or its hash, by this run or a
 * later one, is the same record: what makes an import idempotent, even after the key was rehashed.
 */

import type { Environments } from "../../environments/environments.js";
import { BASE62_ALPHABET } from "../../keys/base62.js";
import type { KeyFormat } from "../../keys/format.js";
import type { SecretHasher } from "../../keys/hash.js";
import type { KeyMetadata, StoredKey } from "../../storage/key-store.js";
import type { CheckedImportRecord } from "./import-record.js";
import { importedLastUseField } from "./imported-last-use.js";
import type { LegacyHashers } from "./legacy-lookup.js";

const hintLength = 4;

/**
 * @param keyward the instance's own hasher: a plaintext key is stored under Keyward's hash at once
 * @param format Keyward's key format: a plaintext key in it (its checksum holds) belongs to the
 *   environment its prefix names (`sk_test_…` to test); every other key to the default one
 */
export function importedKey(
  record: CheckedImportRecord,
  options: {
    keyward: SecretHasher;
    legacy: LegacyHashers;
    format: KeyFormat;
    environments: Environments;
    now: number;
  },
): StoredKey {
  const { keyward, legacy, format, environments, now } = options;
  let secretHash: string;
  let identity: string;
  let hint: string;
  let environment = environments.defaultName;
  if (record.key !== undefined) {
    secretHash = keyward.hash(record.key);
    identity = `sha256:${legacy.sha256.hash(record.key)}`;
    if (format.isWellFormed(record.key)) {
      const prefix = format.prefixOf(record.key)!;
      environment = environments.nameOfPrefix(prefix) ?? environment;
      hint = format.hint(record.key);
    } else {
      hint = `${record.prefix}…${record.key.slice(-hintLength)}`;
    }
  } else {
    const { hex, pepper } = record.hash!;
    secretHash = hex;
    identity = pepper === undefined ? `sha256:${hex}` : `hmac-sha256:${pepper}:${hex}`;
    hint = `${record.prefix}…`;
  }
  const createdAt = record.createdAt ?? now;
  return {
    id: importedKeyId(legacy.sha256, identity),
    version: 1,
    ownerType: record.owner.type,
    ownerId: record.owner.id,
    createdBy: record.createdBy,
    name: record.name,
    scopes: record.scopes,
    tier: record.tier,
    secretHash,
    hint,
    createdAt,
    expiresAt: record.expiresAt,
    revokedAt: null,
    rotatedAt: null,
    previousSecretHash: null,
    previousSecretExpiresAt: null,
    ownerTier: null,
    limits: record.credits ? { credits: { ...record.credits, grantedAt: now } } : null,
    disabledAt: record.enabled ? null : now,
    metadata: record.metadata as KeyMetadata | null,
    environment,
    ...(record.lastUsedAt === null
      ? {}
      : { fields: { [importedLastUseField.name]: record.lastUsedAt } }),
  };
}

/**
 * `key_` + 24 base62 characters, as every key id, taken from a hash of the secret's identity (not
 * the secret: an id is no secret). 24 × 5.95 bits ≈ 143 bits: no two keys meet by chance.
 */
export function importedKeyId(sha256: SecretHasher, identity: string): string {
  const hex = sha256.hash(`keyward-import-id\u0000${identity}`);
  let id = "key_";
  for (let i = 0; i < 24; i++) {
    id += BASE62_ALPHABET[Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 62];
  }
  return id;
}
