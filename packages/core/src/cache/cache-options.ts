/**
 * What a verification cache (`cachedKeyStore`) is configured with, what it counts, and what it
 * offers beyond the `KeyStore` it wraps.
 */
import type { Clock } from "../clock.js";
import type { ReportsStoreFailures } from "../logging/store-failure-reporter.js";
import type { KeyStore, StoredKey } from "../storage/key-store.js";
import type { InvalidationChannel } from "./invalidation-channel.js";

export interface CachedKeyStoreOptions {
  /**
   * Carries evictions to the other instances. Without one the cache is local: another instance's
   * rotation or revocation reaches this one only when the entry expires (`ttlMs`), which is right
   * for a single instance only.
   */
  channel?: InvalidationChannel;
  /**
   * How long a found record may be served without asking the store again. A safety net for an
   * invalidation that was lost without the channel noticing, not the way changes arrive: those
   * evict at once. Default 30 s.
   */
  ttlMs?: number;
  /** Most records held; the least recently used goes first. Default 10,000. */
  maxEntries?: number;
  /**
   * How long "no key has this hash" is remembered, so that a client retrying a rotated-away or
   * mistyped key does not reach the database on every request; 0 turns it off. Safe because a new
   * secret is random and cannot have been looked up before it existed. Default 2 s.
   */
  negativeTtlMs?: number;
  /** Most misses remembered, kept apart so a flood of random keys cannot push out real ones. Default 10,000. */
  maxNegativeEntries?: number;
  /** Time source for the TTLs; default the system clock. */
  clock?: Clock;
  /**
   * Told when an invalidation could not be published or the channel could not be subscribed to.
   * Until it recovers other instances may serve a changed key until its TTL runs out. Default: the
   * logger of the Keyward using this store (`console.warn` until one does).
   */
  onError?(error: unknown): void;
}

export interface CachedKeyStoreStats {
  hits: number;
  /** Misses remembered from an earlier lookup (see `negativeTtlMs`). */
  negativeHits: number;
  /** Lookups that went to the store while caching was on. */
  misses: number;
  /**
   * Lookups made while caching was off (channel not live): each went to the store, concurrent
   * lookups of one key through one shared call.
   */
  bypassed: number;
  /** Entries dropped by an invalidation, local or received. */
  invalidations: number;
  /** Times the whole cache was dropped because the channel was interrupted or came back. */
  resets: number;
}

export interface CachedKeyStore extends KeyStore, Required<ReportsStoreFailures> {
  /**
   * The cached answer for a hash — the record, or null for a remembered miss — without reaching
   * the store; undefined when it is not cached (or caching is off). Counted in `stats` as a hit.
   */
  peek(secretHash: string): StoredKey | null | undefined;
  /**
   * Resolves once the cache is on: at once without a channel, otherwise once the channel's
   * subscription is live. Until then every lookup goes to the store. Rejects if subscribing failed.
   */
  readonly ready: Promise<void>;
  /** Whether lookups are being cached right now. */
  readonly caching: boolean;
  readonly size: number;
  readonly stats: Readonly<CachedKeyStoreStats>;
  /** Drops every cached record on this instance. */
  clear(): void;
  /** Unsubscribes from the channel and stops caching. Does not close the inner store. */
  close(): Promise<void>;
}

/** What `CachedKeyStoreOptions` leaves out comes to these. */
export const cacheDefaults = {
  ttlMs: 30_000,
  maxEntries: 10_000,
  negativeTtlMs: 2_000,
  maxNegativeEntries: 10_000,
};
