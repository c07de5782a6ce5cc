import type { StoredEvent } from "../event-model/event.js";
import type { Owner, OwnerType } from "../keys/owner.js";
import type { KeyLimits } from "../limits/types.js";
import type { JsonValue, KeyMetadata } from "./key-metadata.js";

export type { JsonValue, KeyMetadata } from "./key-metadata.js";

/**
 * A stored API key. It never holds the secret: only `secretHash`, the hash of the current secret
 * (see `keys/hash.ts`), and `hint`, which shows the prefix and the last four characters.
 * Times are milliseconds since the Unix epoch.
 */
export interface StoredKey {
  id: string;
  /**
   * How many times the record has been written: 1 when created, one more with every change a store
   * makes to it (`update`, `rotate`, `revoke`, `setLimits`, `setOwnerTier`). What a compare-and-set
   * compares (`KeyStore.update`'s `expectedVersion`) and what an HTTP `ETag` names. Records stored
   * before versions existed read as 1.
   */
  version: number;
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
   * The hash of the secret a graceful rotation replaced, which keeps working until
   * `previousSecretExpiresAt`; null when the last rotation had no grace period (or there was none).
   * A later rotation replaces it, so at most one earlier secret is ever valid.
   */
  previousSecretHash: string | null;
  /** Until when (exclusive) the previous secret is accepted; null exactly when `previousSecretHash` is. */
  previousSecretExpiresAt: number | null;
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
  /**
   * When a disabled key was last enabled again (`enabled: true`); absent or null if it never was.
   * Kept when the key is disabled again. A sign of life for `permissions({ disableAfterUnused })`,
   * whose scan would otherwise disable a key enabled after a long disuse again at once.
   */
  enabledAt?: number | null;
  /** The host's own data about the key: a JSON object of at most 4 KiB serialized, or null. */
  metadata: KeyMetadata | null;
  /**
   * The environment the key was made in, when `environments` are configured (its secret carries
   * that environment's prefix); absent or null for a key made without them.
   */
  environment?: string | null;
  /**
   * The fields features add to a key (an allowlist, resource limits, a sealed secret…), by name,
   * each a JSON value. The kernel and the stores keep them without knowing them: a store writes and
   * reads them back as given (one JSON column, one hash field per field, a plain object) and never
   * looks inside. Absent when the key has none; a field is never stored as null (null removes it).
   */
  fields?: FeatureFields;
}

/** A key's feature fields: JSON values by field name (see `StoredKey.fields`). */
export type FeatureFields = Readonly<Record<string, JsonValue>>;

/** Changes to feature fields: a value sets the field, null removes it. */
export type FeatureFieldChanges = Readonly<Record<string, JsonValue>>;

/** What `KeyStore.update` changes; fields left out keep their values. */
export interface KeyUpdate {
  name?: string;
  scopes?: readonly string[];
  metadata?: KeyMetadata | null;
  /** A time to disable the key, or null to enable it. */
  disabledAt?: number | null;
  /** When a disabled key is enabled again (set with `disabledAt: null`); replaces the last one. */
  enabledAt?: number;
  /** The key's per-key limits (`keys.update`'s `limits`, applied to what it had), or null to clear them. */
  limits?: KeyLimits | null;
  /** Feature fields to set (a value) or remove (null); fields not named keep their values. */
  fields?: FeatureFieldChanges;
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

/** Which keys `KeyStore.listExpiring` answers: a window of expiry times and a page of it. */
export interface ExpiringKeysQuery {
  /** Keys whose `expiresAt` is at least this (epoch ms)… */
  from: number;
  /** …and before this (exclusive). */
  to: number;
  /** At most this many keys. */
  limit: number;
  /** Only keys after this position in the order (a later expiry, or the same with a larger id). */
  after?: { expiresAt: number; id: string };
}

/** The change a rotation makes: a compare-and-set on the current secret's hash. */
export interface KeyRotation {
  id: string;
  /** The hash the caller read; the rotation applies only if it is still the current one. */
  expectedHash: string;
  secretHash: string;
  hint: string;
  rotatedAt: number;
  /**
   * A grace period's end: the replaced secret (`expectedHash`) becomes the record's previous secret,
   * valid until then. Absent or null: no grace, and any earlier previous secret is dropped too.
   */
  previousSecretExpiresAt?: number | null;
  /**
   * The `version` the caller read: with it, the rotation also applies only if the record is still
   * at that version (HTTP `If-Match`), so no change made meanwhile goes unseen by the caller.
   */
  expectedVersion?: number;
  /**
   * Feature fields written with the rotation in the same atomic step, as `KeyUpdate.fields` (a
   * value sets, null removes, others are kept): a feature's `beforeRotate` hook puts them here.
   */
  fields?: FeatureFieldChanges;
}

/**
 * Persistence for API keys.
 *
 * Contract every implementation keeps (checked by `@keyward/testing`'s storage suite):
 * - `create` rejects (throws) when the id or the secret hash already exists.
 * - Lookups return `null` for a missing record, never throw for it.
 * - `findByHash` answers for the *current* secret and for the record's `previousSecretHash`, and for
 *   no other: once a rotation without grace succeeds, the old hash finds nothing; after a graceful
 *   one it finds the record until a later rotation replaces it. (Whether the grace has run out is
 *   the caller's check, against `previousSecretExpiresAt`; a store may stop answering for the
 *   previous hash once it has.) Revoked and expired keys are still returned; the caller decides
 *   what they mean.
 * - `rotate` is one atomic compare-and-set: it replaces the hash only if the key exists, is not
 *   revoked, its current hash equals `expectedHash` and, when `expectedVersion` is given, its
 *   `version` is that one. Of many concurrent rotations that read the same hash, exactly one succeeds; the others get `null`. With `previousSecretExpiresAt` the
 *   replaced hash becomes `previousSecretHash`; without, both previous fields become null. Either
 *   way the secret that was previous before this rotation stops being found at once.
 * - `revoke` sets `revokedAt` only if it is unset, atomically; a second revoke gets `null`.
 *   Revocation is permanent: nothing clears `revokedAt`.
 * - `update` sets the given fields in one atomic write, only if the key exists and is not revoked
 *   and, when `expectedVersion` is given, its `version` is still that one; it returns the updated
 *   record, otherwise `null` and nothing changes (events included). Of many concurrent updates that
 *   read the same version, exactly one succeeds. Without `expectedVersion` the write is
 *   unconditional (last writer wins), as before versions.
 * - Feature fields (`fields`) are kept as given, whatever their names and JSON values (empty lists
 *   and objects, nested values, any text), through every write: `create` and `importKeys` store
 *   them, `update` and `rotate` set those their `fields` give a value, remove those given null and
 *   keep the others, in the same atomic write as the rest; `revoke`, `setOwnerTier`, `setLimits`
 *   and `rehash` keep them. A record without any reads with no `fields` at all.
 * - Every change a store makes to a record (`update`, `rotate`, `revoke`, `setLimits`,
 *   `setOwnerTier`) adds 1 to its `version` in the same atomic write; `create` stores the version
 *   it is given (Keyward gives 1).
 * - An owner is its type and id together: a user and an organization with the same id own
 *   different keys (`listByOwner` and `setOwnerTier` never mix them).
 * - `setOwnerTier` sets `ownerTier` on every key of the owner whose value differs (revoked keys
 *   included) and returns the changed records; none changed → an empty array. Other fields are
 *   left as they are.
 * - Events (only a store that has `events`): `create`, `rotate`, `revoke` and `update` take an
 *   optional last argument, the events of the change, and write them in the same atomic step as the
 *   change, only when it happens (see `EventLog`). Keyward passes events only to a key store whose
 *   store has an `events` part, and only with `events()` listed; without them every method works as before.
 */
export interface KeyStore {
  create(key: StoredKey, events?: readonly StoredEvent[]): Promise<void>;
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
  /**
   * Optional: how many of the owner's keys are live at `now`, neither revoked nor expired (an
   * expiry at `now` or before has passed; disabled keys count), as reading `listByOwner` would
   * tell, without reading the records out. `maxKeysPerOwner` asks it on every create; without it
   * Keyward lists the owner's keys, whose cost grows with every key the owner ever had, revoked
   * ones included.
   */
  countLiveByOwner?(owner: Owner, now: number): Promise<number>;
  rotate(rotation: KeyRotation, events?: readonly StoredEvent[]): Promise<StoredKey | null>;
  revoke(id: string, revokedAt: number, events?: readonly StoredEvent[]): Promise<StoredKey | null>;
  /**
   * @param expectedVersion the `version` the caller read and computed `changes` (and `events`)
   *   from: the write applies only if the record still has it, so nothing written in between is
   *   undone and the events say exactly what changed.
   */
  update(
    id: string,
    changes: KeyUpdate,
    events?: readonly StoredEvent[],
    expectedVersion?: number,
  ): Promise<StoredKey | null>;
  setOwnerTier(owner: Owner, tier: string): Promise<StoredKey[]>;
  /**
   * Optional: replaces the key's `limits` (null clears them), revoked keys included, and returns
   * the changed record, or null for an unknown id. A store with a cache invalidates it, as for a
   * rotation. Without it, `keys.setLimits` and `keys.update`'s `limits` are refused. A store that
   * has it also sets `limits` in `update`, in the same atomic write as the other fields.
   */
  setLimits?(id: string, limits: KeyLimits | null): Promise<StoredKey | null>;
  /**
   * Optional: the keys that are not revoked and expire in `[from, to)`, soonest first (by
   * `expiresAt`, then `id`, both ascending, ids compared by code unit), one page at a time. Read by
   * an index, not a scan of every key: Keyward runs it on a timer on every instance to write
   * `key.expiring`. Disabled keys are included (disabling is reversible). Without it, `key.expiring`
   * is not written.
   */
  listExpiring?(query: ExpiringKeysQuery): Promise<StoredKey[]>;
  /**
   * Optional (the `imports()` feature needs it): stores a batch of imported records in one atomic
   * step and answers the ids it created. A record whose id is already stored is left as it is and
   * not created again (an import run twice changes nothing); a record whose secret hash belongs to
   * another id fails the whole batch, and nothing of it is written. No events are written.
   */
  importKeys?(keys: readonly StoredKey[]): Promise<string[]>;
  /**
   * Optional (the `imports()` feature needs it): replaces the key's current `secretHash` `from` by
   * `to` (the same secret, hashed Keyward's way, once an imported key is first used), in one
   * compare-and-set: only if the key exists and `from` is still its current hash; otherwise `null`
   * and nothing changes. `from` stops being found at once. Not a change of the key (its secret,
   * hint and `version` stay). A store with a cache evicts the entry under `from` on every instance.
   */
  rehash?(id: string, from: string, to: string): Promise<StoredKey | null>;
  /**
   * Optional: the keys that are not revoked, by `id` ascending (compared by code unit), `limit` at
   * most, after the id `after` when given. Walked page by page by `permissions({
   * disableAfterUnused })`'s scan, on a timer, never per request. Without it, that policy cannot run.
   */
  listLive?(query: { limit: number; after?: string }): Promise<StoredKey[]>;
}
