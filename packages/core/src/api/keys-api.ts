import { internalError, KeywardError } from "../errors/keyward-error.js";
import { generateKeyId, isKeyId } from "../keys/key-id.js";
import type { KeywardContext } from "../keyward/context.js";
import { applyOverrides } from "../limits/check-limits.js";
import type { KeyLimitOverrides, KeyLimits } from "../limits/types.js";
import { type UsageLimits, usageLimits } from "../limits/usage-limits.js";
import type { StoredKey } from "../storage/key-store.js";
import type { KeyUsage } from "../storage/usage-store.js";
import { validateCreateKeyBody } from "../validation/create-key-body.js";
import { ownerIdProblem } from "../validation/owner-id.js";
import {
  isoTime,
  type KeyRecord,
  type KeyWithSecret,
  keyStatus,
  toKeyRecord,
} from "./key-record.js";

export interface CreateKeyInput {
  /** The user the key belongs to (a JWT's `sub`). */
  ownerId: string;
  /** The owner's account tier; the key's tier may not be above it. */
  accountTier: string;
  name: string;
  scopes: string[];
  tier: string;
  /** ISO 8601 date-time with an offset, or a Date; omitted or null for a key that never expires. */
  expiresAt?: string | Date | null;
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
}

export interface KeysApi {
  create(input: CreateKeyInput): Promise<KeyWithSecret>;
  list(ownerId: string): Promise<KeyRecord[]>;
  rotate(ownerId: string, keyId: string, options?: RotateKeyOptions): Promise<KeyWithSecret>;
  revoke(ownerId: string, keyId: string): Promise<RevokedKey>;
  usage(ownerId: string, keyId: string): Promise<UsageReport>;
  /**
   * Records an account's tier on all its keys, for a billing system to call when a plan changes.
   * Keys above the new tier run at it from then on, on every instance within the revocation bound
   * (through the verification cache's invalidation); an upgrade lifts them back to their own tier.
   * Sessions and `create` record the tier they carry too; this is the immediate, explicit path.
   * @example
   * await keyward.keys.setAccountTier(userId, "free"); // after a downgrade
   */
  setAccountTier(ownerId: string, tier: string): Promise<void>;
  /**
   * An operator's per-key limits (never reachable through the HTTP API): override any layer of the
   * key's tier, or grant it credits. Fields given replace the key's current ones, `null` returns a
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
/** The keys API plus what only the HTTP layer needs. */
export interface InternalKeysApi extends KeysApi {
  /** `create` from a raw request body, which may be anything (an array, a string). */
  createFromBody(ownerId: string, accountTier: string, body: unknown): Promise<KeyWithSecret>;
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

  const ownedKey = async (ownerId: string, keyId: string): Promise<StoredKey> => {
    requireOwner(ownerId);
    // An id of a shape never issued cannot exist: no store is asked (a NUL byte or a megabyte of
    // path would otherwise reach it, and PostgreSQL answers a NUL with an error, not "no row").
    const key = isKeyId(keyId) ? await ctx.keys.findById(keyId) : null;
    if (!key) throw new KeywardError("key_not_found", "API key not found");
    if (key.ownerId !== ownerId) {
      throw new KeywardError("not_owner", "Not permitted to access this API key");
    }
    return key;
  };

  const newSecret = () => {
    const secret = ctx.format.generate();
    return { secret, secretHash: ctx.hasher.hash(secret), hint: ctx.format.hint(secret) };
  };

  /** Creation from an unvalidated body: the one place the create body is validated. */
  const createFromBody = (ownerId: string, accountTier: string, body: unknown) =>
    guarded(async () => {
      requireOwner(ownerId);
      const checked = validateCreateKeyBody(ctx.createKeyBody, body);
      if (!checked.ok) throw new KeywardError("validation_failed", checked.issues);
      const resolvedTier = ctx.tiers.resolveAccountTier(accountTier);
      if (!ctx.tiers.allows(resolvedTier, checked.value.tier)) {
        throw new KeywardError(
          "tier_not_allowed",
          `Tier '${checked.value.tier}' is above the account's tier '${resolvedTier}'`,
        );
      }
      const { secret, secretHash, hint } = newSecret();
      const key: StoredKey = {
        id: generateKeyId(ctx.random),
        ownerId,
        name: checked.value.name,
        scopes: checked.value.scopes,
        tier: checked.value.tier,
        secretHash,
        hint,
        createdAt: ctx.clock.now(),
        expiresAt: checked.expiresAt,
        revokedAt: null,
        rotatedAt: null,
        ownerTier: resolvedTier,
      };
      await ctx.keys.create(key);
      return { ...toKeyRecord(key, key.createdAt, null), key: secret };
    });

  return {
    create: async (input) => {
      const { name, scopes, tier, expiresAt } = input;
      requireOwner(input.ownerId);
      // What the caller says the account's tier is now applies to the owner's other keys too.
      const accountTier = ctx.tiers.resolveAccountTier(input.accountTier);
      await guarded(() => ctx.accountTiers.record(input.ownerId, accountTier));
      return createFromBody(input.ownerId, accountTier, {
        name,
        scopes,
        tier,
        ...(expiresAt == null ? {} : { expiresAt: dateTimeText(expiresAt) }),
      });
    },

    createFromBody,

    list: (ownerId) =>
      guarded(async () => {
        requireOwner(ownerId);
        const keys = await ctx.keys.listByOwner(ownerId);
        const lastUsed = keys.length
          ? await ctx.usage.lastUsed(keys.map((key) => key.id))
          : new Map();
        const now = ctx.clock.now();
        return keys.map((key) => toKeyRecord(key, now, lastUsed.get(key.id) ?? null));
      }),

    rotate: (ownerId, keyId, options = {}) =>
      guarded(async () => {
        const key = await ownedKey(ownerId, keyId);
        const now = ctx.clock.now();
        refuseIfGone(key, now);
        if (options.accountTier !== undefined) {
          const accountTier = ctx.tiers.resolveAccountTier(options.accountTier);
          // A key on a tier no longer configured ranks lowest (it runs at the lowest tier).
          if (ctx.tiers.rank(key.tier) > ctx.tiers.rank(accountTier)) {
            throw new KeywardError(
              "tier_not_allowed",
              `Tier '${key.tier}' is above the account's tier '${accountTier}'`,
            );
          }
        }
        const { secret, secretHash, hint } = newSecret();
        const rotated = await ctx.keys.rotate({
          id: key.id,
          expectedHash: key.secretHash,
          secretHash,
          hint,
          rotatedAt: now,
        });
        if (!rotated) {
          // The compare-and-set lost: the key was revoked, or another rotation replaced the
          // secret first. Handing out this secret would give the caller a key that never works.
          const current = await ctx.keys.findById(key.id);
          if (current) refuseIfGone(current, now);
          throw new KeywardError(
            "rotation_conflict",
            "The API key was rotated by a concurrent request; no new secret was issued",
          );
        }
        const lastUsed = await ctx.usage.lastUsed([key.id]);
        return { ...toKeyRecord(rotated, now, lastUsed.get(key.id) ?? null), key: secret };
      }),

    revoke: (ownerId, keyId) =>
      guarded(async () => {
        const key = await ownedKey(ownerId, keyId);
        if (key.revokedAt !== null) throw revokedError();
        const revoked = await ctx.keys.revoke(key.id, ctx.clock.now());
        // null: a concurrent revoke won; the outcome the caller asked for holds, but not by this call.
        if (!revoked || revoked.revokedAt === null) throw revokedError();
        return { id: revoked.id, status: "revoked", revokedAt: isoTime(revoked.revokedAt) };
      }),

    usage: (ownerId, keyId) =>
      guarded(async () => {
        const key = await ownedKey(ownerId, keyId);
        // Buffered usage becomes visible to the read below.
        await ctx.usageRecorder.flush();
        const usage = await ctx.usage.read(key.id);
        // Only when the key has a quota or credits: a v0.1 body is unchanged.
        const limits = await usageLimits(ctx, key, ctx.clock.now());
        // Field by field, not a spread: a store's extra fields must never reach a response.
        return {
          keyId: key.id,
          totalRequests: usage.totalRequests,
          lastUsedAt: usage.lastUsedAt === null ? null : isoTime(usage.lastUsedAt),
          endpoints: usage.endpoints,
          daily: usage.daily,
          ...limits,
        };
      }),

    setAccountTier: async (ownerId, tier) => {
      requireOwner(ownerId);
      if (!ctx.tiers.has(tier)) {
        throw new MisuseError(
          `Keyward: unknown tier "${tier}"; configured tiers: ${ctx.tiers.names.join(", ")}`,
        );
      }
      await guarded(() => ctx.accountTiers.record(ownerId, tier));
    },

    setLimits: async (keyId, overrides) => {
      const setLimits = ctx.keys.setLimits;
      if (!setLimits) {
        throw new MisuseError("Keyward: this key store cannot store per-key limits (`setLimits`)");
      }
      const key = isKeyId(keyId) ? await guarded(() => ctx.keys.findById(keyId)) : null;
      if (!key) throw new KeywardError("key_not_found", "API key not found");
      let limits: KeyLimits | null;
      try {
        limits = applyOverrides(key.limits, overrides, ctx.clock.now());
      } catch (error) {
        throw new MisuseError(`Keyward: setLimits: ${(error as Error).message}`);
      }
      if (limits !== null && !ctx.layeredLimits) {
        throw new MisuseError(
          "Keyward: the store's rate limits cannot apply layered limits (`consumeLayers`)",
        );
      }
      const updated = await guarded(() => setLimits.call(ctx.keys, key.id, limits));
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
function requireOwner(ownerId: string): void {
  const problem = ownerIdProblem(ownerId);
  if (problem) {
    throw new MisuseError(
      `Keyward: ownerId ${problem}; it must be a non-empty string of at most 255 characters without control characters`,
    );
  }
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

function revokedError(): KeywardError {
  return new KeywardError("key_gone", "API key has been revoked");
}
