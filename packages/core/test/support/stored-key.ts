/** A key record for tests of stores and caches: a fresh id and secret hash on every call. */
import type { StoredKey } from "../../src/storage/key-store.js";

let counter = 0;

/** A 64-hex-digit secret hash, different on every call. */
export const testHash = (): string => (++counter).toString(16).padStart(64, "0");

export const storedKey = (overrides: Partial<StoredKey> = {}): StoredKey => ({
  id: `key_${++counter}`,
  ownerType: "user",
  ownerId: "alice",
  createdBy: "creator",
  name: "test",
  scopes: ["profile:read"],
  tier: "free",
  secretHash: testHash(),
  hint: "sk_live_…abcd",
  createdAt: 1_000,
  expiresAt: null,
  revokedAt: null,
  rotatedAt: null,
  previousSecretHash: null,
  previousSecretExpiresAt: null,
  version: 1,
  ownerTier: null,
  disabledAt: null,
  metadata: null,
  ...overrides,
});
