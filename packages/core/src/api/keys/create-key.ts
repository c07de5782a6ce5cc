/** Creating a key, from a body that may be anything: the one place the create body is validated. */

import { KeywardError } from "../../errors/keyward-error.js";
import type { EventActor } from "../../event-model/event-actor.js";
import { generateKeyId } from "../../keys/key-id.js";
import type { Owner } from "../../keys/owner.js";
import type { FeatureFields, StoredKey } from "../../storage/key-store.js";
import { validateCreateKeyBody } from "../../validation/create-key-body.js";
import type { Versioned } from "../key-api-types.js";
import { type KeyWithSecret, toKeyRecord } from "../key-record.js";
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

  return async (body, decideOwner) => {
    const checked = validateCreateKeyBody(ctx.createKeyBody, body);
    if (!checked.ok) throw new KeywardError("validation_failed", checked.issues);
    const { owner, createdBy, accountTier, actor, grants } = await decideOwner(
      checked.value.organizationId,
    );
    refuseUngrantableScopes(grants, checked.value.scopes);
    const resolvedTier = ctx.tiers.resolveAccountTier(accountTier);
    if (!ctx.tiers.allows(resolvedTier, checked.value.tier)) {
      throw new KeywardError(
        "tier_not_allowed",
        `Tier '${checked.value.tier}' is above the account's tier '${resolvedTier}'`,
      );
    }
    const environment = checked.value.environment ?? ctx.environments.defaultName;
    const { secret, secretHash, hint } = ops.newSecret(ctx.environments.prefixOf(environment)!);
    const id = generateKeyId(ctx.random);
    // The features' hooks, in their order: each may refuse, or add an expiry and feature fields.
    let expiresAt = checked.expiresAt;
    let fields: FeatureFields = checked.value.fields ?? {};
    for (const hook of ctx.writes.beforeCreate) {
      const draft = { id, owner, tier: checked.value.tier, expiresAt, secret, fields };
      const added = await hook.run(draft, ctx.writeKit);
      if (added?.expiresAt !== undefined) expiresAt = added.expiresAt;
      if (added?.fields !== undefined) fields = { ...fields, ...added.fields };
    }
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
      ...withFields(fields),
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

/** A new record's feature fields, as its spread: none at all when there are none. */
function withFields(fields: FeatureFields): { fields?: FeatureFields } {
  return Object.keys(fields).length === 0 ? {} : { fields };
}
