import type { KeywardStore } from "@keyward/core";

/**
 * What a storage implementation hands the conformance suite.
 * Each test builds its own store and uses fresh ids, so a shared database needs no cleanup between
 * tests; tests never assume the store starts empty.
 */
export interface StorageSuiteOptions<S extends KeywardStore = KeywardStore> {
  /** A store ready to use (migrations applied, connections open). */
  createStore(): S | Promise<S>;
  /** Releases what `createStore` opened; default `store.close()`. */
  closeStore?(store: S): Promise<void>;
  /**
   * Direct reads of the backing data that bypass the store's own getters, so the suite can check
   * what is really persisted (as Auth.js's adapter tests do). Required: a store's getters could
   * hide a secret or a stale hash that its storage still holds, and only a raw read shows it.
   */
  probe: StorageProbe<S>;
  /** Skip the rate-limit section (for a package that provides only keys and usage). */
  skipRateLimits?: boolean;
  /**
   * Skip the layered-limits section, for a store whose rate limits have no `consumeLayers` and
   * that provides no `allowances`.
   */
  skipLayers?: boolean;
  /**
   * Skip the events section, for a key store without `events` (one that cannot write events
   * atomically with its changes). With it, Keyward refuses `events` in its configuration.
   */
  skipEvents?: boolean;
  /**
   * Skip the webhook outbox section, for an event log without `outbox`. With it, Keyward refuses
   * `webhooks` in its configuration.
   */
  skipWebhooks?: boolean;
  /**
   * Skip the time- and usage-based events section, for a key store without `listExpiring` (it
   * cannot find expiring keys, so Keyward writes no `key.expiring` with it).
   */
  skipExpiringKeys?: boolean;
  /** Skip the key section (for a package that provides only rate limits and usage). */
  skipKeys?: boolean;
  /**
   * Skip `usage.prune` (retention), for a usage store without it, or one that refuses it where
   * it runs (`redisStore` on a Cluster).
   */
  skipUsagePrune?: boolean;
}

export interface StorageProbe<S extends KeywardStore = KeywardStore> {
  /**
   * Everything the store has persisted, as plain data (rows, hash fields, strings, buffers). The
   * suite walks it looking for secrets that must never be there.
   */
  dump(store: S): Promise<unknown>;
  /**
   * The persisted form of one key record by id, or null when there is none. A store that holds no
   * keys (run with `skipKeys`) answers null.
   */
  rawKey(store: S, id: string): Promise<Record<string, unknown> | null>;
}
