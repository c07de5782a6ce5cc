import type { KeyLimits } from "../limits/types.js";
import type { Owner, OwnerType } from "../organizations/owner.js";

/**
 * A stored API key. It never holds the secret: only `secretHash`, the hash of the current secret
 * (see `keys/hash.ts`), and `hint`, which shows the prefix and the last four characters.
 * Times are milliseconds since the Unix epoch.
 */
export interface StoredKey {
  id: string;
  /** Whose key it is: a user's own, or an organization's (see `Owner`). */
  ownerType: OwnerType;
  /** The user's or the organization's id. */
  ownerId: string;
  /**
   * The user who created it. For a user's own key it is the owner (stores read it so for keys
   * stored before it was recorded); an organization's key keeps working after its creator leaves.
   */
  createdBy: string;
  name: string;
  scopes: readonly string[];
  tier: string;
  secretHash: string;
  hint: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  /** When the secret was last replaced, or null if it never was. */
  rotatedAt: number | null;
  /**
   * The owner's account tier as Keyward last saw it (from a session token, a create call or
   * `keys.setAccountTier`), shared by all the owner's keys; null when never seen (keys stored
   * before it was recorded). A key never runs above it: see `TierLadder.effective`.
   */
  ownerTier: string | null;
  /**
   * An operator's per-key limit overrides and credits (`keys.setLimits`); absent or null: the
   * tier's layers. Stores keep it as given (a JSON value).
   */
  limits?: KeyLimits | null;
  /** When the key was disabled (`enabled: false`), or null while enabled. Reversible, unlike `revokedAt`. */
  disabledAt: number | null;
  /** The host's own data about the key: a JSON object of at most 4 KiB serialized, or null. */
  metadata: KeyMetadata | null;
}

/** A JSON value, as metadata holds it. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [field: string]: JsonValue };

/** Key metadata: a JSON object. */
export type KeyMetadata = { readonly [field: string]: JsonValue };

/** What `KeyStore.update` changes; fields left out keep their values. */
export interface KeyUpdate {
  name?: string;
  scopes?: readonly string[];
  metadata?: KeyMetadata | null;
  /** A time to disable the key, or null to enable it. */
  disabledAt?: number | null;
}

/** Where a page of `listByOwner` starts: after this key in the listing order. */
export interface KeyListCursor {
  createdAt: number;
  id: string;
}

export interface ListByOwnerOptions {
  /** At most this many keys. */
  limit?: number;
  /** Only keys after this one in the order (older, or as old with a smaller id). */
  after?: KeyListCursor;
}

/** The change a rotation makes: a compare-and-set on the current secret's hash. */
export interface KeyRotation {
  id: string;
  /** The hash the caller read; the rotation applies only if it is still the current one. */
  expectedHash: string;
  secretHash: string;
  hint: string;
  rotatedAt: number;
}

/**
 * Persistence for API keys.
 *
 * Contract every implementation keeps (checked by `@keyward/testing`'s storage suite):
 * - `create` rejects (throws) when the id or the secret hash already exists.
 * - Lookups return `null` for a missing record, never throw for it.
 * - `findByHash` answers only for the *current* secret: once a rotation succeeds, the old hash finds
 *   nothing. Revoked and expired keys are still returned; the caller decides what they mean.
 * - `rotate` is one atomic compare-and-set: it replaces the hash only if the key exists, is not
 *   revoked, and its current hash equals `expectedHash`. Of many concurrent rotations that read the
 *   same hash, exactly one succeeds; the others get `null`.
 * - `revoke` sets `revokedAt` only if it is unset, atomically; a second revoke gets `null`.
 *   Revocation is permanent: nothing clears `revokedAt`.
 * - `update` sets the given fields in one atomic write, only if the key exists and is not revoked,
 *   and returns the updated record; otherwise `null` and nothing changes.
 * - An owner is its type and id together: a user and an organization with the same id own
 *   different keys (`listByOwner` and `setOwnerTier` never mix them).
 * - `setOwnerTier` sets `ownerTier` on every key of the owner whose value differs (revoked keys
 *   included) and returns the changed records; none changed → an empty array. Other fields are
 *   left as they are.
 */
export interface KeyStore {
  create(key: StoredKey): Promise<void>;
  findByHash(secretHash: string): Promise<StoredKey | null>;
  /**
   * Optional: what `findByHash` would answer, if this store can tell without any I/O — the record,
   * or `null` when it knows no key has this hash — and `undefined` when only storage can tell.
   * Synchronous, and never starts a lookup. Verification asks it first; what it answers costs no
   * storage work, so it is also what lets keys already known from a client address keep working
   * while that address is refused further lookups (see `failedLookups` in `KeywardConfig`).
   * A cache in front of a database answers from its entries (`cachedKeyStore`); a store whose
   * every lookup is free (the memory store) answers every call, and is then never limited.
   * When it answers, it must agree with `findByHash`.
   */
  peek?(secretHash: string): StoredKey | null | undefined;
  findById(id: string): Promise<StoredKey | null>;
  /**
   * The owner's keys, newest first (by `createdAt`, then `id`, both descending). With `after`,
   * only the keys that come after that position; with `limit`, at most that many (a page).
   */
  listByOwner(owner: Owner, options?: ListByOwnerOptions): Promise<StoredKey[]>;
  rotate(rotation: KeyRotation): Promise<StoredKey | null>;
  revoke(id: string, revokedAt: number): Promise<StoredKey | null>;
  update(id: string, changes: KeyUpdate): Promise<StoredKey | null>;
  setOwnerTier(owner: Owner, tier: string): Promise<StoredKey[]>;
  /**
   * Optional: replaces the key's `limits` (null clears them), revoked keys included, and returns
   * the changed record, or null for an unknown id. A store with a cache invalidates it, as for a
   * rotation. Without it, `keys.setLimits` is refused.
   */
  setLimits?(id: string, limits: KeyLimits | null): Promise<StoredKey | null>;
}
