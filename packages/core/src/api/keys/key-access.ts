/**
 * Who may act on a key: the owner the host's code names (`keys.*`), or a signed-in caller, on their
 * own keys and on their organizations' keys as their role permits (the endpoints).
 */
import { isKeyId } from "../../keys/key-id.js";
import type { OrganizationAction } from "../../keys/organization-access.js";
import { isOwnedBy, type Owner, userOwner } from "../../keys/owner.js";
import type { KeywardContext } from "../../keyward/context.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { Caller } from "../key-api-types.js";
import { keyNotFoundError, notOwnerError } from "./key-errors.js";
import { requireOwner } from "./owner-input.js";

export interface KeyAccessChecks {
  /** The key by its id: 404 for an unknown one. */
  find(keyId: string): Promise<StoredKey>;
  /** The key, when it is this owner's: 404 for an unknown id, 403 for another owner's key. */
  owned(owner: Owner, keyId: string): Promise<StoredKey>;
  /**
   * The key, when the caller may `action` it (their own, or an organization's with a role that
   * may), and the account tier that caps it (the caller's, or the organization's).
   */
  callers(
    caller: Caller,
    keyId: string,
    action: OrganizationAction,
  ): Promise<{ key: StoredKey; accountTier: string; grants?: readonly string[] }>;
  /**
   * Whose keys a listing shows: the caller's own, or (with organizations) the named
   * organization's, once the caller's role there may read them.
   */
  readableOwner(caller: Caller, organizationId: string | undefined): Promise<Owner>;
  /** The account tier recorded on a key (its owner's), or the lowest when none ever was. */
  recordedTier(key: StoredKey | undefined): string;
  /**
   * The tier an organization runs at when its member's membership does not say: the one recorded
   * with its keys (they all carry the same), or the lowest before its first key.
   */
  organizationTier(owner: Owner): Promise<string>;
}

export function keyAccessChecks(ctx: KeywardContext): KeyAccessChecks {
  const find = async (keyId: string): Promise<StoredKey> => {
    // An id of a shape never issued cannot exist: no store is asked (a NUL byte or a megabyte of
    // path would otherwise reach it, and PostgreSQL answers a NUL with an error, not "no row").
    const key = isKeyId(keyId) ? await ctx.keys.findById(keyId) : null;
    if (!key) throw keyNotFoundError();
    return key;
  };
  const recordedTier = (key: StoredKey | undefined): string =>
    ctx.tiers.resolveAccountTier(key?.ownerTier ?? undefined);

  return {
    find,
    recordedTier,
    async owned(owner, keyId) {
      requireOwner(owner);
      const key = await find(keyId);
      if (!isOwnedBy(key, owner)) throw notOwnerError();
      return key;
    },
    async callers(caller, keyId, action) {
      const key = await find(keyId);
      if (key.ownerType === "user") {
        if (key.ownerId !== caller.userId) throw notOwnerError();
        return { key, accountTier: caller.tier };
      }
      // An organization's key where organizations are not listed: nobody may act on it here.
      if (!ctx.organizations) throw notOwnerError();
      const membership = await ctx.organizations.require(
        caller.claims,
        key.ownerId,
        action,
        "not_owner",
      );
      // A membership that states no tier leaves the organization's recorded one in charge.
      const accountTier = membership.tier ?? recordedTier(key);
      return membership.grants === undefined
        ? { key, accountTier }
        : { key, accountTier, grants: membership.grants };
    },
    async readableOwner(caller, organizationId) {
      if (organizationId === undefined || !ctx.organizations) return userOwner(caller.userId);
      await ctx.organizations.require(caller.claims, organizationId, "read", "not_member");
      return { type: "organization", id: organizationId };
    },
    organizationTier: async (owner) =>
      recordedTier((await ctx.keys.listByOwner(owner, { limit: 1 }))[0]),
  };
}
