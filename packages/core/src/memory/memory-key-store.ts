import type { StoredEvent } from "../event-model/event.js";
import { ownerLabel, ownerOfKey } from "../keys/owner.js";
import { pageOfExpiringKeys } from "../storage/expiring-order.js";
import { withFields } from "../storage/feature-field-changes.js";
import { frozenKey } from "../storage/frozen-key.js";
import { newestKeyFirst, pageOfKeys } from "../storage/key-order.js";
import type { KeyRotation, KeyStore, KeyUpdate, StoredKey } from "../storage/key-store.js";
import { type MemoryEventLog, memoryEventLog } from "./memory-event-log.js";

/**
 * `KeyStore` in process memory. Every operation is synchronous inside its promise, so the
 * compare-and-sets of `rotate` and `update` and the check-then-set of `revoke` cannot interleave
 * with another call. Records are copied once on the way in and frozen, so they can be handed out without a copy
 * per lookup (verification reads one on every request) and still never change under a caller.
 * A change's events are appended in the same synchronous step as the change.
 */
export function memoryKeyStore(): KeyStore & {
  peek(secretHash: string): StoredKey | null;
  events: MemoryEventLog;
  snapshot(): StoredKey[];
} {
  const byId = new Map<string, StoredKey>();
  const idByHash = new Map<string, string>();
  /** Key ids by `ownerLabel`, which keeps a user and an organization with one id apart. */
  const idsByOwner = new Map<string, Set<string>>();

  const peek = (secretHash: string): StoredKey | null => {
    const id = idByHash.get(secretHash);
    return (id === undefined ? undefined : byId.get(id)) ?? null;
  };

  // A copy on the way in (the caller's object may change after the call), frozen for sharing.
  const freeze = (key: StoredKey): StoredKey => frozenKey({ ...key });
  const events = memoryEventLog();
  const record = (changed: readonly StoredEvent[] | undefined) => {
    if (changed?.length) events.record(changed);
  };

  return {
    async create(key, changeEvents) {
      if (byId.has(key.id)) throw new Error(`A key with id ${key.id} already exists`);
      if (idByHash.has(key.secretHash))
        throw new Error("A key with this secret hash already exists");
      byId.set(key.id, freeze(key));
      idByHash.set(key.secretHash, key.id);
      if (key.previousSecretHash !== null) idByHash.set(key.previousSecretHash, key.id);
      const owner = ownerLabel(ownerOfKey(key));
      const owned = idsByOwner.get(owner);
      if (owned) owned.add(key.id);
      else idsByOwner.set(owner, new Set([key.id]));
      record(changeEvents);
    },

    async findByHash(secretHash) {
      return peek(secretHash);
    },

    // Every lookup here is free, so it always answers: verification never needs to limit it.
    peek,

    async findById(id) {
      return byId.get(id) ?? null;
    },

    async listByOwner(owner, options) {
      const keys: StoredKey[] = [];
      for (const id of idsByOwner.get(ownerLabel(owner)) ?? []) keys.push(byId.get(id)!);
      return pageOfKeys(keys.sort(newestKeyFirst), options);
    },

    async countLiveByOwner(owner, now) {
      let live = 0;
      for (const id of idsByOwner.get(ownerLabel(owner)) ?? []) {
        const key = byId.get(id)!;
        if (key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now)) live++;
      }
      return live;
    },

    // A walk of every key, as listExpiring's.
    async listLive({ limit, after }) {
      const live = [...byId.values()].filter(
        (key) => key.revokedAt === null && (after === undefined || key.id > after),
      );
      live.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return live.slice(0, limit);
    },

    // A walk of every key: the memory store holds few, and the scan runs on a timer, not per request.
    async listExpiring(query) {
      return pageOfExpiringKeys(byId.values(), query);
    },

    async rotate(rotation: KeyRotation, changeEvents) {
      const { id, expectedHash, secretHash, hint, rotatedAt } = rotation;
      const previousSecretExpiresAt = rotation.previousSecretExpiresAt ?? null;
      const key = byId.get(id);
      if (!key || key.revokedAt !== null || key.secretHash !== expectedHash) return null;
      const { expectedVersion } = rotation;
      if (expectedVersion !== undefined && key.version !== expectedVersion) return null;
      if (idByHash.has(secretHash)) throw new Error("A key with this secret hash already exists");
      // The secret an earlier grace kept alive ends now, whatever this rotation's grace.
      if (key.previousSecretHash !== null) idByHash.delete(key.previousSecretHash);
      const graceful = previousSecretExpiresAt !== null;
      if (!graceful) idByHash.delete(key.secretHash);
      const { fields: _replaced, ...kernelFields } = key;
      const rotated = freeze({
        ...kernelFields,
        version: key.version + 1,
        secretHash,
        hint,
        rotatedAt,
        previousSecretHash: graceful ? key.secretHash : null,
        previousSecretExpiresAt,
        ...withFields(key.fields, rotation.fields),
      });
      byId.set(id, rotated);
      idByHash.set(secretHash, id);
      record(changeEvents);
      return rotated;
    },

    async revoke(id, revokedAt, changeEvents) {
      const key = byId.get(id);
      if (!key || key.revokedAt !== null) return null;
      const revoked = freeze({ ...key, version: key.version + 1, revokedAt });
      byId.set(id, revoked);
      record(changeEvents);
      return revoked;
    },

    async update(id, changes: KeyUpdate, changeEvents, expectedVersion) {
      const key = byId.get(id);
      if (!key || key.revokedAt !== null) return null;
      if (expectedVersion !== undefined && key.version !== expectedVersion) return null;
      const { fields: fieldChanges, ...kernelChanges } = changes;
      const fields = definedFields(kernelChanges);
      // A copy, as in setLimits: the caller's object must not change the stored record later.
      if (changes.limits) fields.limits = structuredClone(changes.limits);
      const { fields: _replaced, ...rest } = key;
      const updated = freeze({
        ...rest,
        ...fields,
        ...withFields(key.fields, fieldChanges),
        version: key.version + 1,
      });
      byId.set(id, updated);
      record(changeEvents);
      return updated;
    },

    async setOwnerTier(owner, tier) {
      const changed: StoredKey[] = [];
      for (const id of idsByOwner.get(ownerLabel(owner)) ?? []) {
        const key = byId.get(id)!;
        if (key.ownerTier === tier) continue;
        const updated = freeze({ ...key, ownerTier: tier, version: key.version + 1 });
        byId.set(id, updated);
        changed.push(updated);
      }
      return changed;
    },

    async setLimits(id, limits) {
      const key = byId.get(id);
      if (!key) return null;
      // A copy: the caller's object must not change the stored record later.
      const updated = freeze({
        ...key,
        limits: limits === null ? null : structuredClone(limits),
        version: key.version + 1,
      });
      byId.set(id, updated);
      return updated;
    },

    // All checks first, then all writes, in one synchronous step: nothing of a failed batch is kept.
    async importKeys(keys) {
      const fresh = keys.filter((key) => !byId.has(key.id));
      for (const key of fresh) {
        if (idByHash.has(key.secretHash) && idByHash.get(key.secretHash) !== key.id) {
          throw new Error(`A key with the secret hash of imported key ${key.id} already exists`);
        }
      }
      for (const key of fresh) {
        byId.set(key.id, freeze(key));
        idByHash.set(key.secretHash, key.id);
        const owner = ownerLabel(ownerOfKey(key));
        const owned = idsByOwner.get(owner);
        if (owned) owned.add(key.id);
        else idsByOwner.set(owner, new Set([key.id]));
      }
      return fresh.map((key) => key.id);
    },

    async rehash(id, from, to) {
      const key = byId.get(id);
      if (!key || key.secretHash !== from) return null;
      if (idByHash.has(to)) throw new Error("A key with this secret hash already exists");
      const rehashed = freeze({ ...key, secretHash: to });
      byId.set(id, rehashed);
      idByHash.delete(from);
      idByHash.set(to, id);
      return rehashed;
    },

    events,

    /** Every stored record, for tests and debugging. */
    snapshot: () => [...byId.values()],
  };
}

/** The fields an update sets: those present, so `{ name: undefined }` changes nothing. */
function definedFields(changes: KeyUpdate): Partial<StoredKey> {
  const fields: Partial<Record<keyof KeyUpdate, unknown>> = {};
  for (const [name, value] of Object.entries(changes)) {
    if (value !== undefined) fields[name as keyof KeyUpdate] = value;
  }
  return fields as Partial<StoredKey>;
}
