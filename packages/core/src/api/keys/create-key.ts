/** Creating a key, from a body that may be anything: the one place the create body is validated. */

import { KeywardError } from "../../errors/keyward-error.js";
import type { EventActor } from "../../event-model/event-actor.js";
import { generateKeyId } from "../../keys/key-id.js";
import type { Owner } from "../../keys/owner.js";
import type { FeatureFields, StoredKey } from "../../storage/key-store.js";
import { validateCreateKeyBody } from "../../validation/create-key-body.js";
import type { Versioned } from "../key-api-types.js";
import { type KeyWithSecret, keyStatus, toKeyRecord } from "../key-record.js";
import type { KeyOperations } from "./key-operations.js";
import { refuseUngrantableScopes } from "./role-grants.js";

/** Whose key it is, the account tier that caps it, and who is acting (for the event). */
export interface CreateDecision {
  owner: Owner;
  createdBy: string;
  accountTier: string;
  actor: EventActor;
  /** The scopes the creating member's role may grant, when it is capped (`organizations()`). */
  grants?: readonly string[];
}

/**
 * `decideOwner` runs after validation (a 422 comes before a 403, as on every endpoint) with the
 * body's `organizationId`.
 */
export type CreateKey = (
  body: unknown,
  decideOwner: (organizationId: string | undefined) => Promise<CreateDecision>,
) => Promise<Versioned<KeyWithSecret>>;

export function createKeyOperation(ops: KeyOperations): CreateKey {
  const { ctx } = ops;

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

  /**
   * The expiry under a lifetime policy (`permissions({ maxLifetime })`): none asked → the cap; one
   * past it → 422 at `expiresAt`, nothing created. Without a policy, the body's as it is.
   */
  const expiryWithinPolicy = (
    requested: number | null,
    key: { tier: string; owner: Owner },
  ): number | null => {
    const maxLifetime = ctx.maxKeyLifetime?.(key);
    if (maxLifetime === undefined) return requested;
    const latest = ctx.clock.now() + maxLifetime;
    if (requested === null) return latest;
    if (requested <= latest) return requested;
    throw new KeywardError("validation_failed", [
      {
        loc: ["body", "expiresAt"],
        msg: `Value error, a key of tier '${key.tier}' may live at most ${describeLifetime(maxLifetime)}: expiresAt must be ${new Date(latest).toISOString()} or earlier`,
        type: "value_error",
      },
    ]);
  };

  return async (body, decideOwner) => {
    const checked = validateCreateKeyBody(ctx.createKeyBody, body);
    if (!checked.ok) throw new KeywardError("validation_failed", checked.issues);
    const { owner, createdBy, accountTier, actor, grants } = await decideOwner(
      checked.value.organizationId,
    );
    refuseUngrantableScopes(grants, checked.value.scopes);
    await refuseOverKeyLimit(owner);
    const resolvedTier = ctx.tiers.resolveAccountTier(accountTier);
    if (!ctx.tiers.allows(resolvedTier, checked.value.tier)) {
      throw new KeywardError(
        "tier_not_allowed",
        `Tier '${checked.value.tier}' is above the account's tier '${resolvedTier}'`,
      );
    }
    const expiresAt = expiryWithinPolicy(checked.expiresAt, {
      tier: checked.value.tier,
      owner,
    });
    const environment = checked.value.environment ?? ctx.environments.defaultName;
    const { secret, secretHash, hint } = ops.newSecret(ctx.environments.prefixOf(environment)!);
    const id = generateKeyId(ctx.random);
    const key: StoredKey = {
      id,
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
      expiresAt,
      revokedAt: null,
      rotatedAt: null,
      previousSecretHash: null,
      previousSecretExpiresAt: null,
      ownerTier: resolvedTier,
      disabledAt: null,
      metadata: checked.value.metadata ?? null,
      // Only with several environments: otherwise the record is exactly the contract's.
      ...(ctx.environments.configured ? { environment } : {}),
      ...withFields({
        ...checked.value.fields,
        ...(ctx.secretSealer ? { sealedSecret: await ctx.secretSealer.seal(secret, id) } : {}),
      }),
    };
    await ops.commit({ kind: "created", key }, actor);
    // A new key was never used: its record needs no usage read.
    const environmentShown =
      ctx.environments.configured && environment !== ctx.environments.defaultName
        ? environment
        : undefined;
    return {
      record: {
        ...toKeyRecord(key, key.createdAt, {
          lastUsedAt: null,
          environment: environmentShown,
          fields: ctx.keyFields,
        }),
        key: secret,
      },
      version: key.version,
    };
  };
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

/** A lifetime as people write it: whole days when it is some, else hours, minutes or seconds. */
function describeLifetime(ms: number): string {
  const units = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
    [1_000, "second"],
  ] as const;
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? "" : "s"}`;
  }
  return `${ms} ms`;
}

/** A new record's feature fields, as its spread: none at all when there are none. */
function withFields(fields: FeatureFields): { fields?: FeatureFields } {
  return Object.keys(fields).length === 0 ? {} : { fields };
}
