/**
 * The key records, in the `keys` object: each `StoredKey` whole, as one JSON value (so a field a
 * feature adds needs no column and no migration), beside the columns its lookups need (the current
 * and the previous secret's hash, the owner, the times the listings order and filter by).
 * Every method runs synchronously inside the object, so each is one atomic step: nothing else runs
 * between its read and its write. The order of listings is core's (`newestKeyFirst`, …).
 */
import type { KeyRotation, KeyUpdate, Owner, StoredEvent, StoredKey } from "@keyward/core";
import { ownerLabel, pageOfExpiringKeys, withFields } from "@keyward/core/toolkit";
import type { SqlStorage } from "./durable-object-state.js";

export const keyTableSchema = `
CREATE TABLE IF NOT EXISTS keys (
  id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL UNIQUE,
  previous_hash TEXT UNIQUE,
  owner TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS keys_by_owner ON keys (owner, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS keys_by_expiry ON keys (expires_at, id) WHERE revoked_at IS NULL;
`;

/** A change to a key: the new record, and what the object must tell the key's limit objects. */
export interface KeyChange {
  key: StoredKey;
}

export interface KeyTableHooks {
  /** Writes a change's events, in the same synchronous step (the event log). */
  recordEvents(events: readonly StoredEvent[] | undefined): void;
  /** Notes that `key`'s limit objects must learn its new version (`version-pushes.ts`). */
  changed(key: StoredKey): void;
}

type Row = { record: string };

const parse = (row: Row | undefined): StoredKey | null =>
  row === undefined ? null : (JSON.parse(row.record) as StoredKey);

export function keyTable(sql: SqlStorage, hooks: KeyTableHooks) {
  const byId = (id: string) =>
    parse(sql.exec<Row>("SELECT record FROM keys WHERE id = ?", id).toArray()[0]);
  const hashTaken = (hash: string) =>
    sql.exec("SELECT 1 FROM keys WHERE secret_hash = ?1 OR previous_hash = ?1", hash).toArray()
      .length > 0;

  const insert = (key: StoredKey) => {
    sql.exec(
      "INSERT INTO keys (id, secret_hash, previous_hash, owner, created_at, expires_at, revoked_at, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      key.id,
      key.secretHash,
      key.previousSecretHash,
      ownerLabel({ type: key.ownerType, id: key.ownerId }),
      key.createdAt,
      key.expiresAt,
      key.revokedAt,
      JSON.stringify(key),
    );
  };
  /** Writes a changed record over the stored one (its id and owner never change). */
  const write = (key: StoredKey) => {
    sql.exec(
      "UPDATE keys SET secret_hash = ?, previous_hash = ?, expires_at = ?, revoked_at = ?, record = ? WHERE id = ?",
      key.secretHash,
      key.previousSecretHash,
      key.expiresAt,
      key.revokedAt,
      JSON.stringify(key),
      key.id,
    );
    hooks.changed(key);
  };

  return {
    create(key: StoredKey, events?: readonly StoredEvent[]): null {
      if (byId(key.id)) throw new Error(`A key with id ${key.id} already exists`);
      if (hashTaken(key.secretHash)) throw new Error("A key with this secret hash already exists");
      insert(key);
      hooks.changed(key);
      hooks.recordEvents(events);
      return null;
    },

    findByHash(hash: string): StoredKey | null {
      return parse(
        sql
          .exec<Row>("SELECT record FROM keys WHERE secret_hash = ?1 OR previous_hash = ?1", hash)
          .toArray()[0],
      );
    },

    findById: byId,

    listByOwner(
      owner: Owner,
      options: { limit?: number; after?: { createdAt: number; id: string } } = {},
    ) {
      const { limit, after } = options;
      const label = ownerLabel(owner);
      // Ids compare by code unit in SQLite's default BINARY collation, as `newestKeyFirst` does.
      const rows = after
        ? sql.exec<Row>(
            "SELECT record FROM keys WHERE owner = ?1 AND (created_at < ?2 OR (created_at = ?2 AND id < ?3)) ORDER BY created_at DESC, id DESC LIMIT ?4",
            label,
            after.createdAt,
            after.id,
            limit ?? -1,
          )
        : sql.exec<Row>(
            "SELECT record FROM keys WHERE owner = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2",
            label,
            limit ?? -1,
          );
      return rows.toArray().map((row) => parse(row)!);
    },

    countLiveByOwner(owner: Owner, now: number): number {
      return sql
        .exec<{ live: number }>(
          "SELECT count(*) AS live FROM keys WHERE owner = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)",
          ownerLabel(owner),
          now,
        )
        .one().live;
    },

    listLive({ limit, after }: { limit: number; after?: string }): StoredKey[] {
      return sql
        .exec<Row>(
          "SELECT record FROM keys WHERE revoked_at IS NULL AND id > ? ORDER BY id LIMIT ?",
          after ?? "",
          limit,
        )
        .toArray()
        .map((row) => parse(row)!);
    },

    listExpiring(query: {
      from: number;
      to: number;
      limit: number;
      after?: { expiresAt: number; id: string };
    }) {
      // The index narrows the window; core's page function applies the order and the cursor.
      const rows = sql
        .exec<Row>(
          "SELECT record FROM keys WHERE revoked_at IS NULL AND expires_at >= ? AND expires_at < ? AND expires_at >= ? ORDER BY expires_at, id",
          query.from,
          query.to,
          query.after?.expiresAt ?? query.from,
        )
        .toArray();
      return pageOfExpiringKeys(
        rows.map((row) => parse(row)!),
        query,
      );
    },

    rotate(rotation: KeyRotation, events?: readonly StoredEvent[]): StoredKey | null {
      const key = byId(rotation.id);
      if (!key || key.revokedAt !== null || key.secretHash !== rotation.expectedHash) return null;
      if (rotation.expectedVersion !== undefined && key.version !== rotation.expectedVersion) {
        return null;
      }
      if (hashTaken(rotation.secretHash)) {
        throw new Error("A key with this secret hash already exists");
      }
      const previousSecretExpiresAt = rotation.previousSecretExpiresAt ?? null;
      const graceful = previousSecretExpiresAt !== null;
      const { fields: _replaced, ...kernelFields } = key;
      const rotated: StoredKey = {
        ...kernelFields,
        version: key.version + 1,
        secretHash: rotation.secretHash,
        hint: rotation.hint,
        rotatedAt: rotation.rotatedAt,
        previousSecretHash: graceful ? key.secretHash : null,
        previousSecretExpiresAt,
        ...withFields(key.fields, rotation.fields),
      };
      write(rotated);
      hooks.recordEvents(events);
      return rotated;
    },

    revoke(id: string, revokedAt: number, events?: readonly StoredEvent[]): StoredKey | null {
      const key = byId(id);
      if (!key || key.revokedAt !== null) return null;
      const revoked = { ...key, version: key.version + 1, revokedAt };
      write(revoked);
      hooks.recordEvents(events);
      return revoked;
    },

    update(
      id: string,
      changes: KeyUpdate,
      events?: readonly StoredEvent[],
      expectedVersion?: number | null,
    ): StoredKey | null {
      const key = byId(id);
      if (!key || key.revokedAt !== null) return null;
      if (expectedVersion != null && key.version !== expectedVersion) return null;
      const { fields: fieldChanges, ...kernelChanges } = changes;
      const fields: Record<string, unknown> = {};
      // Fields present are set; `{ name: undefined }` (dropped by JSON on the way) changes nothing.
      for (const [name, value] of Object.entries(kernelChanges)) {
        if (value !== undefined) fields[name] = value;
      }
      const { fields: _replaced, ...rest } = key;
      const updated = {
        ...rest,
        ...fields,
        ...withFields(key.fields, fieldChanges),
        version: key.version + 1,
      } as StoredKey;
      write(updated);
      hooks.recordEvents(events);
      return updated;
    },

    setOwnerTier(owner: Owner, tier: string): StoredKey[] {
      const changed: StoredKey[] = [];
      const rows = sql
        .exec<Row>("SELECT record FROM keys WHERE owner = ?", ownerLabel(owner))
        .toArray();
      for (const row of rows) {
        const key = parse(row)!;
        if (key.ownerTier === tier) continue;
        const updated = { ...key, ownerTier: tier, version: key.version + 1 };
        write(updated);
        changed.push(updated);
      }
      return changed;
    },

    setLimits(id: string, limits: StoredKey["limits"]): StoredKey | null {
      const key = byId(id);
      if (!key) return null;
      const updated = { ...key, limits, version: key.version + 1 };
      write(updated);
      return updated;
    },

    /** All checks first, then all writes, in one synchronous step: nothing of a failed batch is kept. */
    importKeys(keys: readonly StoredKey[]): string[] {
      const fresh = keys.filter((key) => !byId(key.id));
      const batchHashes = new Map<string, string>();
      for (const key of fresh) {
        const holder = sql
          .exec<{ id: string }>(
            "SELECT id FROM keys WHERE secret_hash = ?1 OR previous_hash = ?1",
            key.secretHash,
          )
          .toArray()[0];
        const inBatch = batchHashes.get(key.secretHash);
        if ((holder && holder.id !== key.id) || (inBatch !== undefined && inBatch !== key.id)) {
          throw new Error(`A key with the secret hash of imported key ${key.id} already exists`);
        }
        batchHashes.set(key.secretHash, key.id);
      }
      const created: string[] = [];
      for (const key of fresh) {
        if (created.includes(key.id)) continue;
        insert(key);
        hooks.changed(key);
        created.push(key.id);
      }
      return created;
    },

    rehash(id: string, from: string, to: string): StoredKey | null {
      const key = byId(id);
      if (!key || key.secretHash !== from) return null;
      if (hashTaken(to)) throw new Error("A key with this secret hash already exists");
      const rehashed = { ...key, secretHash: to };
      // Not a change of the key (its version stays), but the hash it is found by is: the cached
      // records under `from` must go, so the limit objects learn of it as of a change.
      write(rehashed);
      return rehashed;
    },

    /** Where a key's limits are, for a limit call that did not find the key in its isolate's cache. */
    ownerOf(id: string): string | null {
      return (
        sql.exec<{ owner: string }>("SELECT owner FROM keys WHERE id = ?", id).toArray()[0]
          ?.owner ?? null
      );
    },
  };
}
