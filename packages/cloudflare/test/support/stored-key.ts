import type { StoredKey } from "@keyward/core";

/** A key record with fresh ids and a fake hash, for tests that write one. */
export function storedKeyFixture(overrides: Partial<StoredKey> = {}): StoredKey {
  const random = () => crypto.getRandomValues(new Uint32Array(2)).join("");
  const ownerId = `user_${random()}`;
  return {
    id: `key_${random()}`,
    ownerType: "user",
    ownerId,
    createdBy: ownerId,
    name: "test key",
    scopes: ["profile:read"],
    tier: "free",
    secretHash: Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) =>
      b.toString(16).padStart(2, "0"),
    ).join(""),
    hint: "sk_live_…abcd",
    createdAt: Date.parse("2026-01-01T00:00:00.000Z"),
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
  };
}
