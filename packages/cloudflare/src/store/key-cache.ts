/**
 * The isolate's cache of key records: by secret hash, the record its verification reads without a
 * round trip (`peek`), and by key id, where the key's limits are and which version of its record
 * this isolate verified with. That version goes with every limit call, and the limit object
 * refuses a call about an older one (`object/limit-table.ts`): so a record changed elsewhere is
 * never admitted again, however long it stays here.
 *
 * Only records a verification would admit are cached (not revoked, not disabled): one it refuses
 * is read from the `keys` object each time, so a key enabled again works at once everywhere.
 */
import type { Clock, StoredKey } from "@keyward/core";
import { frozenKey, ownerLimitKey } from "@keyward/core/toolkit";

export interface KnownKey {
  /** Whose limits these are (`ownerLimitKey`). */
  owner: string;
  /** The version of the record this isolate last handed out (0: none, only the owner is known). */
  version: number;
  /** That record. */
  record?: StoredKey;
}

export interface KeyCacheOptions {
  ttlMs: number;
  maxEntries: number;
  clock: Clock;
}

export function keyCache({ ttlMs, maxEntries, clock }: KeyCacheOptions) {
  /** hash → the record and until when it is served. Insertion order is the eviction order. */
  const byHash = new Map<string, { key: StoredKey; until: number }>();
  /** id → owner and version; kept apart, so that a limit call finds its key's owner. */
  const known = new Map<string, KnownKey>();
  /** id → the hashes its record is cached under. */
  const hashesById = new Map<string, Set<string>>();

  const drop = (keyId: string) => {
    for (const hash of hashesById.get(keyId) ?? []) byHash.delete(hash);
    hashesById.delete(keyId);
  };

  const bound = <K, V>(map: Map<K, V>, onEvict?: (value: V) => void) => {
    while (map.size > maxEntries) {
      const oldest = map.entries().next().value as [K, V];
      map.delete(oldest[0]);
      onEvict?.(oldest[1]);
    }
  };

  return {
    /** The cached record for a hash, or undefined when only the `keys` object can tell. */
    peek(hash: string): StoredKey | undefined {
      const entry = byHash.get(hash);
      if (entry === undefined) return undefined;
      if (entry.until <= clock.now()) {
        byHash.delete(hash);
        return undefined;
      }
      return entry.key;
    },

    /** Notes a record read from, or written to, the `keys` object; `hash`: what found it. */
    remember(key: StoredKey, hash?: string): StoredKey {
      const frozen = frozenKey(key);
      const seen = known.get(key.id);
      // A record older than one already handed out (two reads that crossed) changes nothing.
      if (seen !== undefined && seen.version > key.version) return frozen;
      known.delete(key.id);
      known.set(key.id, { owner: ownerLimitKey(key), version: key.version, record: frozen });
      bound(known);
      if (seen === undefined || seen.version !== key.version) drop(key.id);
      if (hash !== undefined && key.revokedAt === null && key.disabledAt === null) {
        byHash.set(hash, { key: frozen, until: clock.now() + ttlMs });
        const hashes = hashesById.get(key.id) ?? new Set<string>();
        hashes.add(hash);
        hashesById.set(key.id, hashes);
        bound(byHash, (evicted) => hashesById.get(evicted.key.id)?.clear());
      }
      return frozen;
    },

    /** Forgets a key's cached records (it changed, or its change was refused as stale). */
    forget(keyId: string) {
      drop(keyId);
    },

    known(keyId: string): KnownKey | undefined {
      return known.get(keyId);
    },

    /** Notes where a key's limits are, when only that is known (`ownerOf`). */
    locate(keyId: string, owner: string) {
      if (!known.has(keyId)) known.set(keyId, { owner, version: 0 });
      bound(known);
    },

    clear() {
      byHash.clear();
      hashesById.clear();
      known.clear();
    },

    get size() {
      return byHash.size;
    },
  };
}

export type KeyCache = ReturnType<typeof keyCache>;
