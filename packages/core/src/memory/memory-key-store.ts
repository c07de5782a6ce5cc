import type { KeyRotation, KeyStore, StoredKey } from "../storage/key-store.js";

/**
 * `KeyStore` in process memory. Every operation is synchronous inside its promise, so the
 * compare-and-set of `rotate` and the check-then-set of `revoke` cannot interleave with another
 * call. Records are copied in and out, so callers never hold a live view of the store's state.
 */
export function memoryKeyStore(): KeyStore & { snapshot(): StoredKey[] } {
  const byId = new Map<string, StoredKey>();
  const idByHash = new Map<string, string>();
  const idsByOwner = new Map<string, Set<string>>();

  const copy = (key: StoredKey): StoredKey => ({ ...key, scopes: [...key.scopes] });

  return {
    async create(key) {
      if (byId.has(key.id)) throw new Error(`A key with id ${key.id} already exists`);
      if (idByHash.has(key.secretHash))
        throw new Error("A key with this secret hash already exists");
      byId.set(key.id, copy(key));
      idByHash.set(key.secretHash, key.id);
      const owned = idsByOwner.get(key.ownerId);
      if (owned) owned.add(key.id);
      else idsByOwner.set(key.ownerId, new Set([key.id]));
    },

    async findByHash(secretHash) {
      const id = idByHash.get(secretHash);
      const key = id === undefined ? undefined : byId.get(id);
      return key ? copy(key) : null;
    },

    async findById(id) {
      const key = byId.get(id);
      return key ? copy(key) : null;
    },

    async listByOwner(ownerId) {
      const keys: StoredKey[] = [];
      for (const id of idsByOwner.get(ownerId) ?? []) keys.push(copy(byId.get(id)!));
      return keys.sort(newestFirst);
    },

    async rotate({ id, expectedHash, secretHash, hint, rotatedAt }: KeyRotation) {
      const key = byId.get(id);
      if (!key || key.revokedAt !== null || key.secretHash !== expectedHash) return null;
      if (idByHash.has(secretHash)) throw new Error("A key with this secret hash already exists");
      idByHash.delete(key.secretHash);
      const rotated: StoredKey = { ...key, secretHash, hint, rotatedAt };
      byId.set(id, rotated);
      idByHash.set(secretHash, id);
      return copy(rotated);
    },

    async revoke(id, revokedAt) {
      const key = byId.get(id);
      if (!key || key.revokedAt !== null) return null;
      const revoked: StoredKey = { ...key, revokedAt };
      byId.set(id, revoked);
      return copy(revoked);
    },

    /** Every stored record, for tests and debugging. */
    snapshot: () => [...byId.values()].map(copy),
  };
}

function newestFirst(a: StoredKey, b: StoredKey): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}
