import { operatorActor } from "../event-model/event-actor.js";
import type { UsageSection } from "../feature-interface/usage-section.js";
import { type Owner, ownerOfKey, toOwner, userOwner } from "../keys/owner.js";
import type { KeywardContext } from "../keyward/context.js";
import type { KeyLimitOverrides, KeyLimits } from "../limits/types.js";
import type { KeyMetadata, StoredKey } from "../storage/key-store.js";
import type { Caller, KeyPage, ListPageOptions, RevokedKey, UsageReport } from "./key-api-types.js";
import type { KeyRecord, KeyWithSecret } from "./key-record.js";
import { createKeyOperation } from "./keys/create-key.js";
import { MisuseError, refuseTierAboveAccount } from "./keys/key-errors.js";
import { keyOperations } from "./keys/key-operations.js";
import { keyUsageOperation } from "./keys/key-usage.js";
import { type KeysApiForCaller, keysForCaller } from "./keys/keys-for-caller.js";
import { listKeysOperation } from "./keys/list-keys.js";
import { checkedOwner, type OwnerInput, requireOwner, requireOwnerId } from "./keys/owner-input.js";
import { revokeKeyOperation } from "./keys/revoke-key.js";
import { refuseUngrantableScopes } from "./keys/role-grants.js";
import { rotateKeyOperation } from "./keys/rotate-key.js";
import { setLimitsOperation } from "./keys/set-limits.js";
import { updateKeyOperation } from "./keys/update-key.js";

/**
 * What `keys.create` takes: the owner as `ownerId` (a user) or as `owner` (a user or an
 * organization), exactly one of the two.
 */
export interface CreateKeyInput extends CreateKeyFields {
  /** The user the key belongs to (a JWT's `sub`). */
  ownerId?: string;
  /** Whose key it is: `{ type: "organization", id }` for an organization's key. */
  owner?: Owner;
  /** The user creating it, recorded on the key; required for an organization's key. */
  createdBy?: string;
}

export interface CreateKeyFields {
  /** The owner's account tier (an organization's tier for its keys); the key's may not be above it. */
  accountTier: string;
  name: string;
  scopes: string[];
  tier: string;
  /** ISO 8601 date-time with an offset, or a Date; omitted or null for a key that never expires. */
  expiresAt?: string | Date | null;
  /** The host's own data about the key: a JSON object, at most 4 KiB serialized. */
  metadata?: KeyMetadata;
  /** The environment the key is for, with `environments` configured; default the first. */
  environment?: string;
  /**
   * The listed features' key fields, as the create body takes them (`KeyField.create`, see
   * docs/features.md).
   */
  [featureField: string]: unknown;
}

/** What `keys.update` changes; fields left out stay as they are. */
export interface KeyChanges {
  name?: string;
  /** New metadata, or null to remove it. */
  metadata?: KeyMetadata | null;
  /** false disables the key (its requests get 401 "API key is disabled"); true enables it again. */
  enabled?: boolean;
  /** A subset of the key's scopes: a key's scopes can be narrowed, never widened. */
  scopes?: string[];
  /** The listed features' key fields, as the update body takes them; null removes one. */
  [featureField: string]: unknown;
  /**
   * The operator's per-key limits, as `keys.setLimits` takes them (fields given replace the key's,
   * `null` returns a layer to the tier's, `false` turns it off; `null` clears them all), stored in
   * the same write as the other changes. Never settable through the HTTP API (PATCH answers 422).
   */
  limits?: KeyLimitOverrides | null;
}

export interface RotateKeyOptions {
  /**
   * The caller's current account tier. When given (the HTTP endpoint always gives the session's),
   * a key whose tier is above it is not rotated: 403, as on create.
   */
  accountTier?: string;
  /**
   * How long the replaced secret keeps working, in whole seconds, up to the configured maximum
   * (`gracefulRotation`); 0 or omitted: it fails at once. Needs `gracefulRotation`.
   */
  gracePeriodSeconds?: number;
}

/**
 * Key management for the host's own code: no permission checks beyond "the key belongs to this
 * owner" (the HTTP endpoints check sessions and organization roles before calling the same steps).
 * An owner is a user id, or `{ type: "organization", id }`.
 */
export interface KeysApi {
  create(input: CreateKeyInput): Promise<KeyWithSecret>;
  list(owner: OwnerInput): Promise<KeyRecord[]>;
  rotate(owner: OwnerInput, keyId: string, options?: RotateKeyOptions): Promise<KeyWithSecret>;
  revoke(owner: OwnerInput, keyId: string): Promise<RevokedKey>;
  /**
   * Changes a key's name, metadata, enabled state, (narrowing only) scopes or per-key limits: 422
   * for bad values or fields it does not have (all at once), 410 for a revoked key. Disabling and
   * new limits reach every instance like a revocation. Written by compare-and-set on the version
   * read: a change made meanwhile by another request is never undone (the update is checked again
   * against it and retried; 409 `update_conflict` after 10 lost races).
   * @example
   * await keyward.keys.update(ownerId, keyId, { name: "CI", limits: { quota: { limit: 5_000_000, period: "month" } } });
   */
  update(owner: OwnerInput, keyId: string, changes: KeyChanges): Promise<KeyRecord>;
  /** One page of the owner's keys, newest first; `nextCursor` fetches the next. */
  listPage(owner: OwnerInput, options: ListPageOptions): Promise<KeyPage>;
  /**
   * Revokes every key of the owner that is not revoked yet: for account deletion, or a leak.
   * Resolves with how many this call revoked.
   */
  revokeAll(owner: OwnerInput): Promise<{ revoked: number }>;
  usage(owner: OwnerInput, keyId: string): Promise<UsageReport>;
  /**
   * A key by its id alone, whoever owns it, for tools that hold only ids (an operator's command
   * line, a support console): its record with `owner` always set, to pass to the calls above.
   * `KeywardError` 404 for an unknown id.
   * @example
   * const { owner } = await keyward.keys.get(keyId);
   * await keyward.keys.revoke(owner, keyId);
   */
  get(keyId: string): Promise<KeyRecord & { owner: Owner }>;
  /**
   * Records an account's tier on all its keys, for a billing system to call when a plan changes.
   * Keys above the new tier run at it from then on, on every instance within the revocation bound
   * (through the verification cache's invalidation); an upgrade lifts them back to their own tier.
   * Sessions and `create` record the tier they carry too; this is the immediate, explicit path.
   * @example
   * await keyward.keys.setAccountTier(userId, "free"); // after a downgrade
   */
  setAccountTier(owner: OwnerInput, tier: string): Promise<void>;
  /**
   * The account tier recorded for an owner (with its keys, by a session, a create or
   * `setAccountTier`), or null before the owner's first key. For operator tools that create a key
   * without being told the account's plan: passing this on to `create` changes nothing, where a
   * guess would be recorded on every key of the owner.
   * @example
   * const accountTier = (await keyward.keys.accountTier(owner)) ?? "free";
   */
  accountTier(owner: OwnerInput): Promise<string | null>;
  /**
   * An operator's per-key limits (never reachable through the HTTP API): override any layer of the
   * key's tier, or grant it credits. The same change as `keys.update(owner, keyId, { limits })`, by
   * key id alone (what a billing system holds) and on revoked keys too. Fields given replace the key's current ones, `null` returns a
   * layer to the tier's (credits: none), `false` turns a tier's layer off; `null` instead of an
   * object clears every override. Applies on every instance within the revocation bound.
   * Throws a `TypeError` for a malformed value, `KeywardError` 404 for an unknown key.
   * @example
   * await keyward.keys.setLimits(keyId, { credits: { remaining: 10_000, refill: { amount: 10_000, period: "month" } } });
   * await keyward.keys.setLimits(keyId, { quota: { limit: 1_000_000, period: "month" } });
   */
  setLimits(keyId: string, overrides: KeyLimitOverrides | null): Promise<KeyLimits | null>;
}

/**
 * Key management as plain async functions. Each throws a `KeywardError` in exactly the cases where
 * the HTTP endpoints answer with an error, so the HTTP layer only translates.
 */
export interface InternalKeysApi extends KeysApi {
  forCaller: KeysApiForCaller;
  /** The ownership and permission checks, for other APIs about keys (events). */
  access: KeyAccess;
}

/** Who may see a key: the checks `usage` makes, for the APIs that read about a key as it does. */
export interface KeyAccess {
  /** An owner as the host's code names it, checked (a `TypeError` for a malformed one). */
  owner(owner: OwnerInput): Owner;
  /** The key, when it is this owner's: 404 for an unknown id, 403 for another owner's key. */
  owned(owner: Owner, keyId: string): Promise<StoredKey>;
  /** The key, when the caller may read it (their own, or an organization's with a read role). */
  readable(caller: Caller, keyId: string): Promise<StoredKey>;
  /** The key, when the caller may manage it (their own, or an organization's with a manage role). */
  manageable(caller: Caller, keyId: string): Promise<StoredKey>;
  /**
   * The key, when the caller may rotate it: everything `manageable` checks, and the caller's role
   * may grant every scope it holds (403 `scope_not_grantable`) and the account tier reaches its
   * tier (403 `tier_not_allowed`). Showing a key's secret hands over the key, so it asks at least
   * what issuing a new one does.
   */
  rotatable(caller: Caller, keyId: string): Promise<StoredKey>;
}

/**
 * Key management, assembled from one file per operation (`keys/`) over shared access checks and
 * one `commit`: the host's API (`keys.*`, the operator) and the endpoints' (`forCaller`, a
 * signed-in user), which differ only in who is checked and who the events name.
 */
/**
 * @param parts.usageSections the sections features add to the usage report: installed after the
 *   keys API is made, so read on each report
 */
export function createKeysApi(
  ctx: KeywardContext,
  parts: { usageSections: () => readonly UsageSection[] } = { usageSections: () => [] },
): InternalKeysApi {
  const ops = keyOperations(ctx);
  const { access, guarded } = ops;
  const create = createKeyOperation(ops);
  const list = listKeysOperation(ops);
  const update = updateKeyOperation(ops);
  const rotate = rotateKeyOperation(ops);
  const revoke = revokeKeyOperation(ops);
  const usage = keyUsageOperation(ops, parts.usageSections);

  const forCaller = keysForCaller(ops, { create, list, update, rotate, revoke, usage });

  return {
    create: async (input) => {
      const {
        name,
        scopes,
        tier,
        expiresAt,
        owner: _owner,
        ownerId: _ownerId,
        createdBy: _createdBy,
        accountTier: _accountTier,
        metadata: _metadata,
        environment: _environment,
        ...featureFields
      } = input;
      if ((input.owner === undefined) === (input.ownerId === undefined)) {
        throw new MisuseError("Keyward: keys.create takes exactly one of `ownerId` and `owner`");
      }
      const owner = input.owner ?? userOwner(input.ownerId as string);
      requireOwner(owner);
      const createdBy = input.createdBy ?? (owner.type === "user" ? owner.id : null);
      if (createdBy === null) {
        throw new MisuseError("Keyward: keys.create for an organization needs `createdBy`");
      }
      requireOwnerId(createdBy, "createdBy");
      // What the caller says the account's tier is now applies to the owner's other keys too.
      const accountTier = ctx.tiers.resolveAccountTier(input.accountTier);
      await guarded(() => ctx.accountTiers.record(owner, accountTier));
      if (input.environment !== undefined && !ctx.environments.configured) {
        throw new MisuseError(
          `Keyward: keys.create got environment ${JSON.stringify(input.environment)}, but no \`environments\` are configured`,
        );
      }
      const body = {
        name,
        scopes,
        tier,
        ...(expiresAt == null ? {} : { expiresAt: dateTimeText(expiresAt) }),
        ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
        ...(input.environment === undefined ? {} : { environment: input.environment }),
        ...definedOnly(featureFields),
      };
      const actor = operatorActor;
      const created = await guarded(() =>
        create(body, async () => ({ owner, createdBy, accountTier, actor })),
      );
      return created.record;
    },

    list: (owner) => guarded(async () => list(checkedOwner(owner))),

    rotate: (owner, keyId, options = {}) =>
      guarded(async () => {
        const { gracePeriodSeconds } = options;
        if (gracePeriodSeconds !== undefined && gracePeriodSeconds !== 0 && !ctx.gracefulRotation) {
          throw new MisuseError(
            "Keyward: keys.rotate with `gracePeriodSeconds` needs lifecycle({ gracefulRotation }) in `features`",
          );
        }
        const graceSeconds = rotate.gracePeriodOf(
          gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds },
        );
        const key = await access.owned(toOwner(owner), keyId);
        const rotation = { accountTier: options.accountTier, graceSeconds, actor: operatorActor };
        return (await rotate(key, rotation)).record;
      }),

    revoke: (owner, keyId) =>
      guarded(async () => revoke(await access.owned(toOwner(owner), keyId), operatorActor)),

    update: (owner, keyId, changes) =>
      guarded(
        async () =>
          (await update(await access.owned(toOwner(owner), keyId), changes, operatorActor)).record,
      ),

    listPage: (owner, options) => guarded(async () => list.page(checkedOwner(owner), options)),

    revokeAll: (owner) => guarded(async () => revoke.all(checkedOwner(owner), operatorActor)),

    usage: (owner, keyId) => guarded(async () => usage(await access.owned(toOwner(owner), keyId))),

    get: (keyId) =>
      guarded(async () => {
        const key = await access.find(keyId);
        return { ...(await ops.records.one(key, ctx.clock.now())), owner: ownerOfKey(key) };
      }),

    accountTier: (owner) =>
      guarded(async () => {
        const [newest] = await ctx.keys.listByOwner(checkedOwner(owner), { limit: 1 });
        return newest?.ownerTier ?? null;
      }),

    setAccountTier: async (owner, tier) => {
      const resolved = checkedOwner(owner);
      if (!ctx.tiers.has(tier)) {
        throw new MisuseError(
          `Keyward: unknown tier "${tier}"; configured tiers: ${ctx.tiers.names.join(", ")}`,
        );
      }
      await guarded(() => ctx.accountTiers.record(resolved, tier));
    },

    forCaller,

    access: {
      owner: checkedOwner,
      owned: (owner, keyId) => guarded(() => access.owned(owner, keyId)),
      readable: (caller, keyId) =>
        guarded(async () => (await access.callers(caller, keyId, "read")).key),
      manageable: (caller, keyId) =>
        guarded(async () => (await access.callers(caller, keyId, "manage")).key),
      rotatable: (caller, keyId) =>
        guarded(async () => {
          const { key, accountTier, grants } = await access.callers(caller, keyId, "manage");
          refuseUngrantableScopes(grants, key.scopes);
          refuseTierAboveAccount(ctx, key, accountTier);
          return key;
        }),
    },

    setLimits: setLimitsOperation(ops),
  };
}

/** A Date as the ISO 8601 text the body validation reads; an invalid Date fails that validation. */
function dateTimeText(value: string | Date): unknown {
  if (!(value instanceof Date)) return value;
  return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
}

/** The fields of `fields` that are not undefined: an absent field and an undefined one are alike. */
function definedOnly(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
