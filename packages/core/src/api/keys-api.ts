import type { Principal } from "../auth/principal.js";
import { internalError, KeywardError } from "../errors/keyward-error.js";
import type { ValidationIssue } from "../errors/validation-issue.js";
import { type EventActor, operatorActor, userActor } from "../events/event-actor.js";
import { generateKeyId, isKeyId } from "../keys/key-id.js";
import type { KeywardContext } from "../keyward/context.js";
import { applyOverrides } from "../limits/check-limits.js";
import { hasLimits, limitsAfter, limitsNotAllowed, takeLimits } from "../limits/limits-change.js";
import type { KeyLimitOverrides, KeyLimits } from "../limits/types.js";
import { type UsageLimits, usageLimits } from "../limits/usage-limits.js";
import type { OrganizationAction } from "../organizations/membership.js";
import { isOwnedBy, type Owner, ownerOfKey, toOwner, userOwner } from "../organizations/owner.js";
import type { KeyMetadata, KeyUpdate, StoredKey } from "../storage/key-store.js";
import type { KeyUsage } from "../storage/usage-store.js";
import { validateCreateKeyBody } from "../validation/create-key-body.js";
import { ownerIdProblem } from "../validation/owner-id.js";
import { validateRotateKeyBody } from "../validation/rotate-key-body.js";
import { type UpdateKeyBody, validateUpdateKeyBody } from "../validation/update-key-body.js";
import {
  isoTime,
  type KeyRecord,
  type KeyWithSecret,
  keyStatus,
  toKeyRecord,
} from "./key-record.js";
import { decodeListCursor, encodeListCursor, parsePageSize } from "./list-cursor.js";

/** Who a key is for: a user's id (a JWT's `sub`), or an owner, which may be an organization. */
export type OwnerInput = string | Owner;

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
  /** The IPv4/IPv6 addresses and CIDR ranges the key may be used from; omitted: anywhere. */
  allowedIps?: string[];
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
  /** A new IP allowlist (addresses and CIDR ranges), or null to remove it. */
  allowedIps?: string[] | null;
  /**
   * The operator's per-key limits, as `keys.setLimits` takes them (fields given replace the key's,
   * `null` returns a layer to the tier's, `false` turns it off; `null` clears them all), stored in
   * the same write as the other changes. Never settable through the HTTP API (PATCH answers 422).
   */
  limits?: KeyLimitOverrides | null;
}

/** One page of an owner's keys, and where the next one starts (null after the last). */
export interface KeyPage {
  data: KeyRecord[];
  nextCursor: string | null;
}

export interface ListPageOptions {
  /** Keys per page, 1 to 1,000. */
  limit: number;
  /** `nextCursor` of the previous page; omitted for the first. */
  cursor?: string | null;
}

export interface RevokedKey {
  id: string;
  status: "revoked";
  revokedAt: string;
}

/** A key's usage as the API shows it: `KeyUsage` with `lastUsedAt` as an ISO 8601 string. */
export type UsageReport = Omit<KeyUsage, "lastUsedAt"> & {
  lastUsedAt: string | null;
} & UsageLimits;

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
 * A record as a key-management endpoint answers it, with the `version` of the stored record it
 * shows: what the HTTP layer's `ETag` names and `If-Match` is compared with.
 */
export interface Versioned<T> {
  record: T;
  version: number;
}

/**
 * What a change requires of the record before it applies (HTTP `If-Match`): that its version is one
 * of these. The change is then a single compare-and-set against that version, never retried: a
 * concurrent change is the caller's to look at (412). Omitted: any version, and a change that lost
 * a race is re-checked against the new record and tried again.
 */
export interface VersionPrecondition {
  versions: readonly number[];
}

/** The signed-in user behind a key-management request. */
export type Caller = Extract<Principal, { kind: "user" }>;

/**
 * The endpoints' steps: the same as `KeysApi`, for a signed-in caller, who may act on their own
 * keys and, with `organizations` configured, on their organizations' keys as their role permits.
 */
export interface KeysApiForCaller {
  /** `create` from a raw request body, which may be anything (an array, a string). */
  create(caller: Caller, body: unknown): Promise<Versioned<KeyWithSecret>>;
  list(caller: Caller, organizationId: string | undefined): Promise<KeyRecord[]>;
  listPage(
    caller: Caller,
    organizationId: string | undefined,
    options: ListPageOptions,
  ): Promise<KeyPage>;
  update(
    caller: Caller,
    keyId: string,
    body: unknown,
    precondition?: VersionPrecondition,
  ): Promise<Versioned<KeyRecord>>;
  /**
   * `body`: the raw request body (`{}` when there was none); read only with `gracefulRotation`.
   * With a `precondition`, the key is rotated only at one of its versions (412 otherwise).
   */
  rotate(
    caller: Caller,
    keyId: string,
    body: unknown,
    precondition?: VersionPrecondition,
  ): Promise<Versioned<KeyWithSecret>>;
  revoke(caller: Caller, keyId: string): Promise<RevokedKey>;
  usage(caller: Caller, keyId: string): Promise<UsageReport>;
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
}

export function createKeysApi(ctx: KeywardContext): InternalKeysApi {
  /** Storage failures become a 500 whose detail reveals nothing; the cause stays on the error. */
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof MisuseError) throw error;
      throw internalError(error);
    }
  };

  const findKey = async (keyId: string): Promise<StoredKey> => {
    // An id of a shape never issued cannot exist: no store is asked (a NUL byte or a megabyte of
    // path would otherwise reach it, and PostgreSQL answers a NUL with an error, not "no row").
    const key = isKeyId(keyId) ? await ctx.keys.findById(keyId) : null;
    if (!key) throw new KeywardError("key_not_found", "API key not found");
    return key;
  };

  /** The host's own code names the owner: the key must be that owner's. */
  const ownedKey = async (owner: Owner, keyId: string): Promise<StoredKey> => {
    requireOwner(owner);
    const key = await findKey(keyId);
    if (!isOwnedBy(key, owner)) throw notOwnerError();
    return key;
  };

  /**
   * A signed-in caller names a key: theirs, or an organization's they may act on. Returns the key
   * and the account tier that caps it (the caller's, or the organization's).
   */
  const callersKey = async (caller: Caller, keyId: string, action: OrganizationAction) => {
    const key = await findKey(keyId);
    if (key.ownerType === "user") {
      if (key.ownerId !== caller.userId) throw notOwnerError();
      return { key, accountTier: caller.tier };
    }
    // An organization's key where organizations are not configured: nobody may act on it here.
    if (!ctx.organizations) throw notOwnerError();
    const membership = await ctx.organizations.require(
      caller.claims,
      key.ownerId,
      action,
      "not_owner",
    );
    // A membership that states no tier leaves the organization's recorded one in charge.
    return { key, accountTier: membership.tier ?? recordedTier(key) };
  };

  /** The account tier recorded on a key (its owner's), or the lowest when none ever was. */
  const recordedTier = (key: StoredKey | undefined): string =>
    ctx.tiers.resolveAccountTier(key?.ownerTier ?? undefined);

  /**
   * The tier an organization runs at when its member's membership does not say: the one recorded
   * with its keys (they all carry the same), or the lowest before its first key.
   */
  const organizationTier = async (owner: Owner): Promise<string> =>
    recordedTier((await ctx.keys.listByOwner(owner, { limit: 1 }))[0]);

  /** A secret with `prefix`: the key's environment's. */
  const newSecret = (prefix: string) => {
    const secret = ctx.format.generate(prefix);
    return { secret, secretHash: ctx.hasher.hash(secret), hint: ctx.format.hint(secret) };
  };

  /**
   * The environment a record shows: only a key outside the default environment has one, as only
   * an organization's key has an `owner`, so records stay the contract's until a key is made
   * elsewhere (and a v0.1 configuration's always do).
   */
  const environmentOf = (key: StoredKey) => {
    if (!ctx.environments.configured) return undefined;
    const environment = ctx.environments.ofKey(key);
    return environment === ctx.environments.defaultName ? undefined : environment;
  };

  const requireTierAllowed = (keyTier: string, accountTier: string) => {
    // A key on a tier no longer configured ranks lowest (it runs at the lowest tier).
    if (ctx.tiers.rank(keyTier) > ctx.tiers.rank(accountTier)) {
      throw new KeywardError(
        "tier_not_allowed",
        `Tier '${keyTier}' is above the account's tier '${accountTier}'`,
      );
    }
  };

  /**
   * Creation from an unvalidated body: the one place the create body is validated. `decideOwner`
   * runs after validation (a 422 comes before a 403, as on every endpoint), and says whose key it
   * is, the account tier that caps it, and who is acting (for the event).
   */
  const createValidated = async (
    body: unknown,
    decideOwner: (organizationId: string | undefined) => Promise<{
      owner: Owner;
      createdBy: string;
      accountTier: string;
      actor: EventActor;
    }>,
  ) => {
    const checked = validateCreateKeyBody(ctx.createKeyBody, body);
    if (!checked.ok) throw new KeywardError("validation_failed", checked.issues);
    const { owner, createdBy, accountTier, actor } = await decideOwner(
      checked.value.organizationId,
    );
    await refuseOverKeyLimit(owner);
    const resolvedTier = ctx.tiers.resolveAccountTier(accountTier);
    if (!ctx.tiers.allows(resolvedTier, checked.value.tier)) {
      throw new KeywardError(
        "tier_not_allowed",
        `Tier '${checked.value.tier}' is above the account's tier '${resolvedTier}'`,
      );
    }
    const environment = checked.value.environment ?? ctx.environments.defaultName;
    const { secret, secretHash, hint } = newSecret(ctx.environments.prefixOf(environment)!);
    const key: StoredKey = {
      id: generateKeyId(ctx.random),
      version: 1,
      ownerType: owner.type,
      ownerId: owner.id,
      createdBy,
      name: checked.value.name,
      scopes: checked.value.scopes,
      tier: checked.value.tier,
      secretHash,
      hint,
      createdAt: ctx.clock.now(),
      expiresAt: checked.expiresAt,
      revokedAt: null,
      rotatedAt: null,
      previousSecretHash: null,
      previousSecretExpiresAt: null,
      ownerTier: resolvedTier,
      disabledAt: null,
      metadata: checked.value.metadata ?? null,
      // Only when used: a v0.1 configuration stores exactly the record it always has.
      ...(ctx.environments.configured ? { environment } : {}),
      ...(checked.value.allowedIps ? { allowedIps: checked.value.allowedIps } : {}),
    };
    const events = ctx.events?.build.created(key, actor);
    await ctx.keys.create(key, events);
    if (events) ctx.events?.committed(events);
    return {
      record: { ...toKeyRecord(key, key.createdAt, null, environmentOf(key)), key: secret },
      version: key.version,
    };
  };

  /**
   * The count is read, then the key written: two creates racing for the last place can both pass.
   * The bound is a quota against runaway scripts, not a security boundary, so this is documented
   * rather than paid for with a lock on every create.
   */
  const refuseOverKeyLimit = async (owner: Owner) => {
    const max = ctx.maxKeysPerOwner;
    if (max === undefined) return;
    const now = ctx.clock.now();
    const live = ctx.keys.countLiveByOwner
      ? await ctx.keys.countLiveByOwner(owner, now)
      : countLive(await ctx.keys.listByOwner(owner), now);
    if (live >= max) {
      throw new KeywardError(
        "too_many_keys",
        `The owner already has ${max} keys, the most allowed; revoke one before creating another`,
      );
    }
  };

  const records = async (keys: StoredKey[]) => {
    const lastUsed = keys.length ? await ctx.usage.lastUsed(keys.map((key) => key.id)) : new Map();
    const now = ctx.clock.now();
    return keys.map((key) =>
      toKeyRecord(key, now, lastUsed.get(key.id) ?? null, environmentOf(key)),
    );
  };

  const list = async (owner: Owner) => records(await ctx.keys.listByOwner(owner));

  const listPage = async (owner: Owner, options: ListPageOptions): Promise<KeyPage> => {
    const limit = parsePageSize(options.limit);
    const after =
      options.cursor === undefined || options.cursor === null
        ? undefined
        : decodeListCursor(options.cursor, isKeyId);
    // One more than the page: whether it exists says if there is a next page, without a count.
    const keys = await ctx.keys.listByOwner(owner, {
      limit: limit + 1,
      ...(after ? { after } : {}),
    });
    const page = keys.slice(0, limit);
    const last = page.at(-1);
    return {
      data: await records(page),
      nextCursor: keys.length > limit && last ? encodeListCursor(last) : null,
    };
  };

  /**
   * A change to a key, as one compare-and-set on the version of the record it was computed from:
   * the record written is that one with the change, and the events say exactly what changed. When
   * a concurrent change wins, the change is checked again against the record it left (a narrowing
   * of scopes that record no longer has is a 422, never a widening) and tried again, a few times;
   * with a `precondition` (HTTP `If-Match`) it is not: 412.
   *
   * @param actor who asks: the operator (`keys.update`, the host's own code) may also change
   *   `limits`; a user through the PATCH endpoint may not (the body is the key owner's).
   */
  const update = async (
    key: StoredKey,
    body: unknown,
    actor: EventActor,
    precondition?: VersionPrecondition,
  ): Promise<Versioned<KeyRecord>> => {
    const operator = actor.type === "operator";
    // `limits` is taken out on both paths: the operator's is applied below; a user's is refused
    // with an issue of its own (never applied).
    const taken = takeLimits(body);
    const { rest } = taken;
    const overrides = operator ? taken.limits : undefined;
    const checked = validateUpdateKeyBody(ctx.updateKeyBody, rest);
    let current = key;
    for (let attempt = 1; ; attempt++) {
      const now = ctx.clock.now();
      const issues = checked.ok ? [] : [...checked.issues];
      issues.push(...widenedScopeIssues(current, rest));
      if (!operator && hasLimits(body)) issues.push(limitsNotAllowed);
      const next =
        overrides === undefined ? undefined : limitsAfter(current.limits, overrides, now);
      if (next && "issue" in next) issues.push(next.issue);
      if (issues.length > 0 || !checked.ok) throw new KeywardError("validation_failed", issues);
      if (current.revokedAt !== null) throw revokedError();
      if (precondition && !precondition.versions.includes(current.version)) {
        throw preconditionFailedError();
      }
      const limits = next && "limits" in next ? next.limits : undefined;
      if (limits !== undefined) requireLimitsSupport(limits);
      const changes = changesOf(current, checked.value, limits, now);
      const events = ctx.events?.build.updated(current, changes, now, actor);
      const updated = await ctx.keys.update(current.id, changes, events, current.version);
      if (updated) {
        if (events) ctx.events?.committed(events);
        const lastUsed = await ctx.usage.lastUsed([key.id]);
        return {
          record: toKeyRecord(updated, now, lastUsed.get(key.id) ?? null, environmentOf(updated)),
          version: updated.version,
        };
      }
      // Revoked, changed by someone else, or deleted by hand between the read and the write.
      const fresh = await ctx.keys.findById(key.id);
      if (!fresh) throw new KeywardError("key_not_found", "API key not found");
      if (fresh.revokedAt !== null) throw revokedError();
      if (precondition) throw preconditionFailedError();
      if (attempt === updateAttempts) {
        throw new KeywardError(
          "update_conflict",
          "The API key was changed by concurrent requests; nothing was changed, try again",
        );
      }
      current = fresh;
    }
  };

  /** What an update writes to `key`: the body's fields, each only when given. */
  const changesOf = (
    key: StoredKey,
    value: UpdateKeyBody,
    limits: KeyLimits | null | undefined,
    now: number,
  ): KeyUpdate => {
    const { name, scopes, metadata, enabled, allowedIps } = value;
    return {
      ...(name === undefined ? {} : { name }),
      ...(scopes === undefined ? {} : { scopes }),
      ...(metadata === undefined ? {} : { metadata }),
      ...(allowedIps === undefined ? {} : { allowedIps }),
      // Disabling a disabled key keeps the time it was first disabled.
      ...(enabled === undefined ? {} : { disabledAt: enabled ? null : (key.disabledAt ?? now) }),
      ...(limits === undefined ? {} : { limits }),
    };
  };

  /**
   * Scopes the update would add: a key's scopes can only be narrowed. Checked on the raw body, so
   * these issues join the schema's in one 422; scopes that are not configured at all are the
   * schema's to report.
   */
  const widenedScopeIssues = (key: StoredKey, body: unknown): ValidationIssue[] => {
    const requested = (body as { scopes?: unknown } | null)?.scopes;
    if (!Array.isArray(requested)) return [];
    const issues: ValidationIssue[] = [];
    requested.forEach((scope, index) => {
      if (typeof scope === "string" && ctx.scopes.has(scope) && !key.scopes.includes(scope)) {
        issues.push({
          loc: ["body", "scopes", index],
          msg: `Value error, scope '${scope}' is not granted to this key; scopes can only be narrowed`,
          type: "value_error",
        });
      }
    });
    return issues;
  };

  /** Limits can be stored and applied here: else a host's misconfiguration, thrown as a `TypeError`. */
  const requireLimitsSupport = (limits: KeyLimits | null) => {
    if (!ctx.keys.setLimits) {
      throw new MisuseError("Keyward: this key store cannot store per-key limits (`setLimits`)");
    }
    if (limits !== null && !ctx.layeredLimits) {
      throw new MisuseError(
        "Keyward: the store's rate limits cannot apply layered limits (`consumeLayers`)",
      );
    }
  };

  const revokeAll = async (owner: Owner, actor: EventActor) => {
    let revoked = 0;
    for (const key of await ctx.keys.listByOwner(owner)) {
      if (key.revokedAt !== null) continue;
      const now = ctx.clock.now();
      const events = ctx.events?.build.revoked(key, now, actor);
      // null: revoked concurrently by someone else; it counts for them (and so does the event).
      if (await ctx.keys.revoke(key.id, now, events)) {
        revoked++;
        if (events) ctx.events?.committed(events);
      }
    }
    return { revoked };
  };

  /** The grace a rotate body asks for, in seconds: 422 with every problem for a bad one. */
  const gracePeriodOf = (body: unknown): number => {
    if (!ctx.gracefulRotation) return 0;
    const checked = validateRotateKeyBody(ctx.gracefulRotation.body, body);
    if (!checked.ok) throw new KeywardError("validation_failed", checked.issues);
    return checked.value.gracePeriodSeconds ?? 0;
  };

  const rotate = async (
    key: StoredKey,
    accountTier: string | undefined,
    graceSeconds: number,
    actor: EventActor,
    precondition?: VersionPrecondition,
  ) => {
    const now = ctx.clock.now();
    refuseIfGone(key, now);
    if (accountTier !== undefined) {
      requireTierAllowed(key.tier, ctx.tiers.resolveAccountTier(accountTier));
    }
    if (precondition && !precondition.versions.includes(key.version)) {
      throw preconditionFailedError();
    }
    // The new secret stays in the key's environment.
    const { secret, secretHash, hint } = newSecret(ctx.environments.prefixForKey(key));
    // No grace drops any earlier one too: the contract's immediate cut-off, for both secrets.
    const previousSecretExpiresAt = graceSeconds > 0 ? now + graceSeconds * 1000 : null;
    const events = ctx.events?.build.rotated(key, hint, now, actor, previousSecretExpiresAt);
    const rotated = await ctx.keys.rotate(
      {
        id: key.id,
        expectedHash: key.secretHash,
        secretHash,
        hint,
        rotatedAt: now,
        previousSecretExpiresAt,
        // With a precondition, any change since the read (not only another rotation) stops it.
        ...(precondition ? { expectedVersion: key.version } : {}),
      },
      events,
    );
    if (!rotated) {
      // The compare-and-set lost: the key was revoked, or another rotation replaced the
      // secret first. Handing out this secret would give the caller a key that never works.
      const current = await ctx.keys.findById(key.id);
      if (current) refuseIfGone(current, now);
      if (precondition) throw preconditionFailedError();
      throw new KeywardError(
        "rotation_conflict",
        "The API key was rotated by a concurrent request; no new secret was issued",
      );
    }
    if (events) ctx.events?.committed(events);
    const lastUsed = await ctx.usage.lastUsed([key.id]);
    return {
      record: {
        ...toKeyRecord(rotated, now, lastUsed.get(key.id) ?? null, environmentOf(rotated)),
        key: secret,
      },
      version: rotated.version,
    };
  };

  const revoke = async (key: StoredKey, actor: EventActor): Promise<RevokedKey> => {
    if (key.revokedAt !== null) throw revokedError();
    const now = ctx.clock.now();
    const events = ctx.events?.build.revoked(key, now, actor);
    const revoked = await ctx.keys.revoke(key.id, now, events);
    // null: a concurrent revoke won; the outcome the caller asked for holds, but not by this call.
    if (!revoked || revoked.revokedAt === null) throw revokedError();
    if (events) ctx.events?.committed(events);
    return { id: revoked.id, status: "revoked", revokedAt: isoTime(revoked.revokedAt) };
  };

  const usage = async (key: StoredKey): Promise<UsageReport> => {
    ctx.usageRetention?.start();
    // Buffered usage becomes visible to the read below.
    await ctx.usageRecorder.flush();
    const usage = await ctx.usage.read(key.id);
    // Field by field, not a spread: a store's extra fields must never reach a response.
    return {
      keyId: key.id,
      totalRequests: usage.totalRequests,
      lastUsedAt: usage.lastUsedAt === null ? null : isoTime(usage.lastUsedAt),
      endpoints: usage.endpoints,
      daily: usage.daily,
      // Only when the key has a quota or credits: a v0.1 body is unchanged.
      ...(await usageLimits(ctx, key, ctx.clock.now())),
    };
  };

  /**
   * Whose keys a listing shows: the caller's own, or (with `organizations`) the named
   * organization's, once the caller's role there may read them.
   */
  const readableOwner = async (caller: Caller, organizationId: string | undefined) => {
    if (organizationId === undefined || !ctx.organizations) return userOwner(caller.userId);
    await ctx.organizations.require(caller.claims, organizationId, "read", "not_member");
    return { type: "organization", id: organizationId } satisfies Owner;
  };

  const forCaller: KeysApiForCaller = {
    create: (caller, body) =>
      guarded(() =>
        createValidated(body, async (organizationId) => {
          const actor = userActor(caller);
          if (organizationId === undefined || !ctx.organizations) {
            const owner = userOwner(caller.userId);
            return { owner, createdBy: caller.userId, accountTier: caller.tier, actor };
          }
          const membership = await ctx.organizations.require(
            caller.claims,
            organizationId,
            "manage",
            "not_member",
          );
          const owner: Owner = { type: "organization", id: organizationId };
          // The organization's tier as its member's session reports it caps all its keys; only a
          // membership that states a tier records one (a claim without it downgrades nothing).
          if (membership.tier === undefined) {
            const accountTier = await organizationTier(owner);
            return { owner, createdBy: caller.userId, accountTier, actor };
          }
          await ctx.accountTiers.record(owner, membership.tier);
          return { owner, createdBy: caller.userId, accountTier: membership.tier, actor };
        }),
      ),

    list: (caller, organizationId) =>
      guarded(async () => list(await readableOwner(caller, organizationId))),

    listPage: (caller, organizationId, options) =>
      guarded(async () => listPage(await readableOwner(caller, organizationId), options)),

    update: (caller, keyId, body, precondition) =>
      guarded(async () =>
        update(
          (await callersKey(caller, keyId, "manage")).key,
          body,
          userActor(caller),
          precondition,
        ),
      ),

    rotate: (caller, keyId, body, precondition) =>
      guarded(async () => {
        // The body first: a bad one changes nothing, and costs no lookup.
        const graceSeconds = gracePeriodOf(body);
        const { key, accountTier } = await callersKey(caller, keyId, "manage");
        return rotate(key, accountTier, graceSeconds, userActor(caller), precondition);
      }),

    revoke: (caller, keyId) =>
      guarded(async () =>
        revoke((await callersKey(caller, keyId, "manage")).key, userActor(caller)),
      ),

    usage: (caller, keyId) =>
      guarded(async () => usage((await callersKey(caller, keyId, "read")).key)),
  };

  return {
    create: async (input) => {
      const { name, scopes, tier, expiresAt } = input;
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
        ...(input.allowedIps === undefined ? {} : { allowedIps: input.allowedIps }),
      };
      const actor = operatorActor;
      const created = await guarded(() =>
        createValidated(body, async () => ({ owner, createdBy, accountTier, actor })),
      );
      return created.record;
    },

    list: (owner) =>
      guarded(async () => {
        const resolved = toOwner(owner);
        requireOwner(resolved);
        return list(resolved);
      }),

    rotate: (owner, keyId, options = {}) =>
      guarded(async () => {
        const { gracePeriodSeconds } = options;
        if (gracePeriodSeconds !== undefined && gracePeriodSeconds !== 0 && !ctx.gracefulRotation) {
          throw new MisuseError(
            "Keyward: keys.rotate with `gracePeriodSeconds` needs `gracefulRotation` in the configuration",
          );
        }
        const graceSeconds = gracePeriodOf(
          gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds },
        );
        const key = await ownedKey(toOwner(owner), keyId);
        return (await rotate(key, options.accountTier, graceSeconds, operatorActor)).record;
      }),

    revoke: (owner, keyId) =>
      guarded(async () => revoke(await ownedKey(toOwner(owner), keyId), operatorActor)),

    update: (owner, keyId, changes) =>
      guarded(
        async () =>
          (await update(await ownedKey(toOwner(owner), keyId), changes, operatorActor)).record,
      ),

    listPage: (owner, options) =>
      guarded(async () => {
        const resolved = toOwner(owner);
        requireOwner(resolved);
        return listPage(resolved, options);
      }),

    revokeAll: (owner) =>
      guarded(async () => {
        const resolved = toOwner(owner);
        requireOwner(resolved);
        return revokeAll(resolved, operatorActor);
      }),

    usage: (owner, keyId) => guarded(async () => usage(await ownedKey(toOwner(owner), keyId))),

    get: (keyId) =>
      guarded(async () => {
        const key = await findKey(keyId);
        const lastUsed = await ctx.usage.lastUsed([key.id]);
        const record = toKeyRecord(
          key,
          ctx.clock.now(),
          lastUsed.get(key.id) ?? null,
          environmentOf(key),
        );
        return { ...record, owner: ownerOfKey(key) };
      }),

    accountTier: (owner) =>
      guarded(async () => {
        const resolved = toOwner(owner);
        requireOwner(resolved);
        const [newest] = await ctx.keys.listByOwner(resolved, { limit: 1 });
        return newest?.ownerTier ?? null;
      }),

    setAccountTier: async (owner, tier) => {
      const resolved = toOwner(owner);
      requireOwner(resolved);
      if (!ctx.tiers.has(tier)) {
        throw new MisuseError(
          `Keyward: unknown tier "${tier}"; configured tiers: ${ctx.tiers.names.join(", ")}`,
        );
      }
      await guarded(() => ctx.accountTiers.record(resolved, tier));
    },

    forCaller,

    access: {
      owner(owner) {
        const resolved = toOwner(owner);
        requireOwner(resolved);
        return resolved;
      },
      owned: (owner, keyId) => guarded(() => ownedKey(owner, keyId)),
      readable: (caller, keyId) =>
        guarded(async () => (await callersKey(caller, keyId, "read")).key),
    },

    setLimits: async (keyId, overrides) => {
      requireLimitsSupport(null); // the store can keep limits at all: checked before any lookup
      const key = isKeyId(keyId) ? await guarded(() => ctx.keys.findById(keyId)) : null;
      if (!key) throw new KeywardError("key_not_found", "API key not found");
      let limits: KeyLimits | null;
      try {
        limits = applyOverrides(key.limits, overrides, ctx.clock.now());
      } catch (error) {
        throw new MisuseError(`Keyward: setLimits: ${(error as Error).message}`);
      }
      requireLimitsSupport(limits);
      const updated = await guarded(() => ctx.keys.setLimits!(key.id, limits));
      if (!updated) throw new KeywardError("key_not_found", "API key not found");
      return updated.limits ?? null;
    },
  };
}

/** A programming error in the caller, not a request error: it is not turned into a 500. */
class MisuseError extends TypeError {}

/**
 * The owner id follows the rule a JWT's `sub` follows on the HTTP path (where a bad one is a 401
 * before any of this runs). Here the id comes from the host's own code, so a bad one is the
 * host's bug: a `TypeError`, thrown before any store is asked.
 */
function requireOwner(owner: Owner): void {
  if (
    owner === null ||
    typeof owner !== "object" ||
    (owner.type !== "user" && owner.type !== "organization")
  ) {
    throw new MisuseError(
      'Keyward: an owner is a user id, or { type: "user" | "organization", id: string }',
    );
  }
  requireOwnerId(owner.id, owner.type === "user" ? "ownerId" : "organization id");
}

function requireOwnerId(id: string, what: string): void {
  const problem = ownerIdProblem(id);
  if (problem) {
    throw new MisuseError(
      `Keyward: ${what} ${problem}; it must be a non-empty string of at most 255 characters without control characters`,
    );
  }
}

function notOwnerError(): KeywardError {
  return new KeywardError("not_owner", "Not permitted to access this API key");
}

/** A Date as the ISO 8601 text the body validation reads; an invalid Date fails that validation. */
function dateTimeText(value: string | Date): unknown {
  if (!(value instanceof Date)) return value;
  return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
}

function refuseIfGone(key: StoredKey, now: number): void {
  const status = keyStatus(key, now);
  if (status === "revoked") throw revokedError();
  if (status === "expired") throw new KeywardError("key_gone", "API key has expired");
}

function preconditionFailedError(): KeywardError {
  return new KeywardError(
    "precondition_failed",
    "The API key has changed since the version If-Match names; nothing was changed",
  );
}

/**
 * How many times an update without a precondition is tried against a fresh read of the key when
 * concurrent changes keep winning; past it, 409. Each loss means another change was written, so
 * this bounds the work of one request, not anyone's progress: with fewer concurrent writers of
 * one key than this, every one of them gets through.
 */
const updateAttempts = 10;

function revokedError(): KeywardError {
  return new KeywardError("key_gone", "API key has been revoked");
}

/** The keys neither revoked nor expired at `now`: what `KeyStore.countLiveByOwner` answers. */
function countLive(keys: readonly StoredKey[], now: number): number {
  let live = 0;
  for (const key of keys) {
    const status = keyStatus(key, now);
    if (status !== "revoked" && status !== "expired") live++;
  }
  return live;
}
