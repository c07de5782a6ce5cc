/**
 * A verification cache in front of any `KeyStore`: `findByHash`, the one lookup on the request
 * path, is answered from process memory once warm, and rotations, revocations and owner-tier changes
 * evict the entry on every instance through an `InvalidationChannel`. Management reads (`findById`,
 * `listByOwner`) always go to the store, so a rotation's compare-and-set never works on a stale
 * record.
 */
import { systemClock } from "../clock.js";
import type { Owner } from "../keys/owner.js";
import type { KeyLimits } from "../limits/types.js";
import { storeFailureReporter } from "../logging/store-failure-reporter.js";
import { frozenKey } from "../storage/frozen-key.js";
import type { KeyRotation, KeyStore, StoredKey } from "../storage/key-store.js";
import {
  type CachedKeyStore,
  type CachedKeyStoreOptions,
  type CachedKeyStoreStats,
  cacheDefaults,
} from "./cache-options.js";
import { expiringLru } from "./expiring-lru.js";
import type { ChannelState, KeyInvalidation } from "./invalidation-channel.js";

export type {
  CachedKeyStore,
  CachedKeyStoreOptions,
  CachedKeyStoreStats,
} from "./cache-options.js";

/**
 * Records are frozen once, when they enter the cache, and then handed out as they are: a hit costs
 * no copy, and no caller can change what another caller (or the cache) sees.
 */
const frozen = frozenKey;

/**
 * Expiry and revocation are not decided here: the cached record is returned as stored, and the
 * caller checks `expiresAt` and `revokedAt` against its clock on every verification, cached or not.
 *
 * @example
 * const keys = cachedKeyStore(postgresKeys, { channel: postgresInvalidationChannel({ connect }) });
 * await keys.ready; // lookups are cached from here on
 */
export function cachedKeyStore(
  inner: KeyStore,
  options: CachedKeyStoreOptions = {},
): CachedKeyStore {
  const ttlMs = positive("ttlMs", options.ttlMs ?? cacheDefaults.ttlMs);
  const negativeTtlMs = options.negativeTtlMs ?? cacheDefaults.negativeTtlMs;
  if (!(negativeTtlMs >= 0)) throw new TypeError("negativeTtlMs must be 0 or more");
  const clock = options.clock ?? systemClock;
  const failures = storeFailureReporter("key cache invalidation failed", options.onError);
  const onError = failures.report;
  const { channel } = options;

  const stats: CachedKeyStoreStats = {
    hits: 0,
    negativeHits: 0,
    misses: 0,
    bypassed: 0,
    invalidations: 0,
    resets: 0,
  };

  /** key id → hashes its records are cached under (usually one; two when a rotation raced a load). */
  const hashesById = new Map<string, Set<string>>();
  const found = expiringLru<StoredKey>(
    options.maxEntries ?? cacheDefaults.maxEntries,
    (hash, key) => {
      const hashes = hashesById.get(key.id);
      hashes?.delete(hash);
      if (hashes?.size === 0) hashesById.delete(key.id);
    },
  );
  const missing = expiringLru<true>(options.maxNegativeEntries ?? cacheDefaults.maxNegativeEntries);
  /** One store lookup per hash at a time; later callers share it. */
  const inFlight = new Map<string, Promise<StoredKey | null>>();

  /**
   * Bumped by every invalidation and reset. A lookup that started before a bump may have read the
   * record the bump was about, so its result is returned to its callers but not cached.
   */
  let generation = 0;
  let caching = channel === undefined;
  /** The channel's latest report, so a report that comes before `subscribe` resolves is kept. */
  let channelState: ChannelState = "live";
  let closed = false;

  const forget = (keyId: string, secretHash?: string) => {
    generation++;
    inFlight.clear();
    stats.invalidations++;
    if (secretHash !== undefined) found.delete(secretHash);
    for (const hash of [...(hashesById.get(keyId) ?? [])]) found.delete(hash);
  };

  const dropAll = () => {
    generation++;
    inFlight.clear();
    found.clear();
    missing.clear();
    hashesById.clear();
  };

  const reset = (state: ChannelState) => {
    dropAll();
    stats.resets++;
    caching = state === "live" && !closed;
  };

  const remember = (secretHash: string, key: StoredKey | null) => {
    const now = clock.now();
    if (key === null) {
      if (negativeTtlMs > 0) missing.set(secretHash, true, now + negativeTtlMs);
      return;
    }
    found.set(secretHash, key, now + ttlMs);
    const hashes = hashesById.get(key.id);
    if (hashes) hashes.add(secretHash);
    else hashesById.set(key.id, new Set([secretHash]));
  };

  /** The cached answer, counted as a hit, or undefined when only the store can tell. */
  const peek = (secretHash: string): StoredKey | null | undefined => {
    if (!caching) return undefined;
    const now = clock.now();
    const cached = found.get(secretHash, now);
    if (cached !== undefined) {
      stats.hits++;
      return cached;
    }
    if (missing.get(secretHash, now)) {
      stats.negativeHits++;
      return null;
    }
    return undefined;
  };

  const announce = async (event: KeyInvalidation) => {
    if (!channel) return;
    try {
      await channel.publish(event);
    } catch (error) {
      // The write has happened and must be reported as done; other instances fall back on the TTL.
      onError(error);
    }
  };

  let unsubscribe: (() => Promise<void>) | undefined;
  const ready: Promise<void> = channel
    ? channel
        .subscribe(
          (event) => {
            if (closed) return;
            forget(event.keyId, event.secretHash);
            // The hash is a key's now (an import): a miss remembered for it is stale.
            missing.delete(event.secretHash);
          },
          (state) => {
            channelState = state;
            if (!closed) reset(state);
          },
        )
        .then(async (stop) => {
          if (closed) return stop();
          unsubscribe = stop;
          // Records loaded while the subscription was being set up may have missed an event.
          dropAll();
          caching = channelState === "live";
        })
    : Promise.resolve();
  ready.catch((error: unknown) => {
    // A subscription cut short by close() is not a failure worth reporting.
    if (!closed) onError(error);
  });

  return {
    get ready() {
      return ready;
    },
    get caching() {
      return caching;
    },
    get size() {
      return found.size;
    },
    stats,

    peek,

    async findByHash(secretHash) {
      if (caching) {
        const known = peek(secretHash);
        if (known !== undefined) return known;
        stats.misses++;
      } else {
        // Nothing is served from memory while the channel cannot be heard: a revocation made on
        // another instance could be missed. Concurrent lookups of one key still share one query,
        // which is safe (a later local change clears `inFlight`) and keeps a burst of requests
        // for a hot key from becoming a burst of queries while the database is slow.
        stats.bypassed++;
      }
      let lookup = inFlight.get(secretHash);
      if (lookup === undefined) {
        const startedAt = generation;
        const started = inner.findByHash(secretHash);
        lookup = started.then(
          (record) => {
            if (inFlight.get(secretHash) === lookup) inFlight.delete(secretHash);
            const key = record && frozen(record);
            if (startedAt === generation && caching) remember(secretHash, key);
            return key;
          },
          (error: unknown) => {
            if (inFlight.get(secretHash) === lookup) inFlight.delete(secretHash);
            throw error;
          },
        );
        inFlight.set(secretHash, lookup);
      }
      return lookup;
    },

    findById: (id) => inner.findById(id),
    listByOwner: (owner, options) => inner.listByOwner(owner, options),
    ...(inner.countLiveByOwner && {
      countLiveByOwner: (owner: Owner, now: number) => inner.countLiveByOwner!(owner, now),
    }),
    ...(inner.listExpiring ? { listExpiring: inner.listExpiring.bind(inner) } : {}),
    ...(inner.listLive ? { listLive: inner.listLive.bind(inner) } : {}),

    async create(key, events) {
      await inner.create(key, events);
      missing.delete(key.secretHash);
    },

    async rotate(rotation: KeyRotation, events) {
      const rotated = await inner.rotate(rotation, events);
      // Evict even when the compare-and-set lost: the key changed under us, so what we hold is stale.
      forget(rotation.id, rotation.expectedHash);
      missing.delete(rotation.secretHash);
      if (rotated) await announce({ keyId: rotation.id, secretHash: rotation.expectedHash });
      return rotated;
    },

    async revoke(id, revokedAt, events) {
      const revoked = await inner.revoke(id, revokedAt, events);
      forget(id, revoked?.secretHash);
      if (revoked) await announce({ keyId: id, secretHash: revoked.secretHash });
      return revoked;
    },

    async update(id, changes, events, expectedVersion) {
      const updated = await inner.update(id, changes, events, expectedVersion);
      // Announced like a revocation: a disabled key must stop working on every instance.
      forget(id, updated?.secretHash);
      if (updated) await announce({ keyId: id, secretHash: updated.secretHash });
      return updated;
    },

    async setOwnerTier(owner, tier) {
      const changed = await inner.setOwnerTier(owner, tier);
      // Every changed key is announced like a rotation: its cached record holds the old tier.
      for (const key of changed) forget(key.id, key.secretHash);
      await Promise.all(
        changed.map((key) => announce({ keyId: key.id, secretHash: key.secretHash })),
      );
      return changed;
    },

    // Only when the store behind can: a cache must not claim what it cannot pass on.
    ...(inner.setLimits
      ? {
          async setLimits(id: string, limits: KeyLimits | null) {
            const changed = await inner.setLimits!(id, limits);
            // Announced like a rotation: cached records elsewhere hold the old limits.
            forget(id, changed?.secretHash);
            if (changed) await announce({ keyId: id, secretHash: changed.secretHash });
            return changed;
          },
        }
      : {}),

    ...(inner.importKeys
      ? {
          async importKeys(keys: readonly StoredKey[]) {
            const created = await inner.importKeys!(keys);
            // Unlike a new key's secret, an imported one existed before: its token may have been
            // looked up, here or on another instance, and the miss remembered. Each created key's
            // hash is announced, one after another, so that no instance refuses it until the miss
            // expires.
            for (const key of keys) missing.delete(key.secretHash);
            const createdIds = new Set(created);
            for (const key of keys) {
              if (createdIds.has(key.id))
                await announce({ keyId: key.id, secretHash: key.secretHash });
            }
            return created;
          },
        }
      : {}),
    ...(inner.rehash
      ? {
          async rehash(id: string, from: string, to: string) {
            const rehashed = await inner.rehash!(id, from, to);
            // Announced like a rotation: the old hash must stop being served from any cache.
            forget(id, from);
            missing.delete(to);
            if (rehashed) await announce({ keyId: id, secretHash: from });
            return rehashed;
          },
        }
      : {}),

    // Events are read from the store itself: the audit log is never cached.

    clear: dropAll,

    attachLogger(report) {
      failures.attachLogger(report);
      channel?.attachLogger?.(report);
    },

    async close() {
      if (closed) return;
      closed = true;
      caching = false;
      dropAll();
      await unsubscribe?.();
    },
  };
}

function positive(name: string, value: number): number {
  if (!(value > 0)) throw new TypeError(`${name} must be a positive number of milliseconds`);
  return value;
}
