import { newestKeyFirst } from "../storage/key-order.js";
import type { KeyRotation, KeyStore, StoredKey } from "../storage/key-store.js";

/**
 * `KeyStore` in process memory. Every operation is synchronous inside its promise, so the
 * compare-and-set of `rotate` and the check-then-set of `revoke` cannot interleave with another
 * call. Records are copied once on the way in and frozen, so they can be handed out without a copy
 * per lookup (verification reads one on every request) and still never change under a caller.
 */
export function memoryKeyStore(): KeyStore & {
  peek(secretHash: string): StoredKey | null;
  snapshot(): StoredKey[];
} {
  const byId = new Map<string, StoredKey>();
  const idByHash = new Map<string, string>();
  const idsByOwner = new Map<string, Set<string>>();

  const peek = (secretHash: string): StoredKey | null => {
    const id = idByHash.get(secretHash);
    return (id === undefined ? undefined : byId.get(id)) ?? null;
  };

  const freeze = (key: StoredKey): StoredKey =>
    Object.freeze({ ...key, scopes: Object.freeze([...key.scopes]) });

  return {
    async create(key) {
      if (byId.has(key.id)) throw new Error(`A key with id ${key.id} already exists`);
      if (idByHash.has(key.secretHash))
        throw new Error("A key with this secret hash already exists");
      byId.set(key.id, freeze(key));
      idByHash.set(key.secretHash, key.id);
      const owned = idsByOwner.get(key.ownerId);
      if (owned) owned.add(key.id);
      else idsByOwner.set(key.ownerId, new Set([key.id]));
    },

    async findByHash(secretHash) {
      return peek(secretHash);
    },

    // Every lookup here is free, so it always answers: verification never needs to limit it.
    peek,

    async findById(id) {
      return byId.get(id) ?? null;
    },

    async listByOwner(ownerId) {
      const keys: StoredKey[] = [];
      for (const id of idsByOwner.get(ownerId) ?? []) keys.push(byId.get(id)!);
      return keys.sort(newestKeyFirst);
    },

    async rotate({ id, expectedHash, secretHash, hint, rotatedAt }: KeyRotation) {
      const key = byId.get(id);
      if (!key || key.revokedAt !== null || key.secretHash !== expectedHash) return null;
      if (idByHash.has(secretHash)) throw new Error("A key with this secret hash already exists");
      idByHash.delete(key.secretHash);
      const rotated = freeze({ ...key, secretHash, hint, rotatedAt });
      byId.set(id, rotated);
      idByHash.set(secretHash, id);
      return rotated;
    },

    async revoke(id, revokedAt) {
      const key = byId.get(id);
      if (!key || key.revokedAt !== null) return null;
      const revoked = freeze({ ...key, revokedAt });
      byId.set(id, revoked);
      return revoked;
    },

    async setOwnerTier(ownerId, tier) {
      const changed: StoredKey[] = [];
      for (const id of idsByOwner.get(ownerId) ?? []) {
        const key = byId.get(id)!;
        if (key.ownerTier === tier) continue;
        const updated = freeze({ ...key, ownerTier: tier });
        byId.set(id, updated);
        changed.push(updated);
      }
      return changed;
    },

    async setLimits(id, limits) {
      const key = byId.get(id);
      if (!key) return null;
      // A copy: the caller's object must not change the stored record later.
      const updated = freeze({ ...key, limits: limits === null ? null : structuredClone(limits) });
      byId.set(id, updated);
      return updated;
    },

    /** Every stored record, for tests and debugging. */
    snapshot: () => [...byId.values()],
  };
}
