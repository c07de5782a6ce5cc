/**
 * The endpoints' key management: the same steps as the host's `keys.*`, for a signed-in caller,
 * who acts on their own keys and, with `organizations()` listed, on their organizations' keys as
 * their role permits; the events name the caller.
 */
import { userActor } from "../../event-model/event-actor.js";
import { type Owner, userOwner } from "../../keys/owner.js";
import type {
  Caller,
  KeyPage,
  ListPageOptions,
  RevokedKey,
  UsageReport,
  Versioned,
  VersionPrecondition,
} from "../key-api-types.js";
import type { KeyRecord, KeyWithSecret } from "../key-record.js";
import type { CreateKey } from "./create-key.js";
import type { KeyOperations } from "./key-operations.js";
import type { KeyUsage } from "./key-usage.js";
import type { ListKeys } from "./list-keys.js";
import type { RevokeKey } from "./revoke-key.js";
import { refuseUngrantableScopes, scopesAfterUpdate } from "./role-grants.js";
import type { RotateKey } from "./rotate-key.js";
import type { UpdateKey } from "./update-key.js";

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

/** The operations both APIs are assembled from, one file each (`keys/`). */
export interface KeySteps {
  create: CreateKey;
  list: ListKeys;
  update: UpdateKey;
  rotate: RotateKey;
  revoke: RevokeKey;
  usage: KeyUsage;
}

export function keysForCaller(
  { ctx, access, guarded }: KeyOperations,
  { create, list, update, rotate, revoke, usage }: KeySteps,
): KeysApiForCaller {
  return {
    create: (caller, body) =>
      guarded(() =>
        create(body, async (organizationId) => {
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
          // The scopes the member's role may grant, when capped: create refuses any other.
          const { grants } = membership;
          // The organization's tier as its member's session reports it caps all its keys; only a
          // membership that states a tier records one (a claim without it downgrades nothing).
          if (membership.tier === undefined) {
            const accountTier = await access.organizationTier(owner);
            return { owner, createdBy: caller.userId, accountTier, actor, grants };
          }
          await ctx.accountTiers.record(owner, membership.tier);
          return { owner, createdBy: caller.userId, accountTier: membership.tier, actor, grants };
        }),
      ),

    list: (caller, organizationId) =>
      guarded(async () => list(await access.readableOwner(caller, organizationId))),

    listPage: (caller, organizationId, options) =>
      guarded(async () => list.page(await access.readableOwner(caller, organizationId), options)),

    update: (caller, keyId, body, precondition) =>
      guarded(async () => {
        const { key, grants } = await access.callers(caller, keyId, "manage");
        // A capped role changes only keys that, changed, hold scopes it may grant.
        refuseUngrantableScopes(grants, scopesAfterUpdate(key.scopes, body));
        return update(key, body, userActor(caller), precondition);
      }),

    rotate: (caller, keyId, body, precondition) =>
      guarded(async () => {
        // The body first: a bad one changes nothing, and costs no lookup.
        const graceSeconds = rotate.gracePeriodOf(body);
        const { key, accountTier, grants } = await access.callers(caller, keyId, "manage");
        // A new secret re-grants the key's scopes: a capped role rotates only what it may grant.
        refuseUngrantableScopes(grants, key.scopes);
        return rotate(key, { accountTier, graceSeconds, actor: userActor(caller), precondition });
      }),

    revoke: (caller, keyId) =>
      guarded(async () =>
        revoke((await access.callers(caller, keyId, "manage")).key, userActor(caller)),
      ),

    usage: (caller, keyId) =>
      guarded(async () => usage((await access.callers(caller, keyId, "read")).key)),
  };
}
