/**
 * Rotating a key: a new secret by compare-and-set on the one read, so that two rotations racing
 * never both hand out a secret. With a grace (allowed by a rotate hook's `grace`, as
 * `lifecycle({ gracefulRotation })` adds), the replaced secret keeps working until it ends;
 * without one, it fails at once, as does any earlier grace.
 */

import { KeywardError } from "../../errors/keyward-error.js";
import type { EventActor } from "../../event-model/event-actor.js";
import type { RotateDraft } from "../../keys/write-hooks.js";
import type { FeatureFieldChanges, StoredKey } from "../../storage/key-store.js";
import { validateRotateKeyBody } from "../../validation/rotate-key-body.js";
import type { Versioned, VersionPrecondition } from "../key-api-types.js";
import type { KeyWithSecret } from "../key-record.js";
import { preconditionFailedError, refuseIfGone, refuseTierAboveAccount } from "./key-errors.js";
import type { KeyOperations } from "./key-operations.js";

export interface RotateKey {
  /** The grace a rotate body asks for, in seconds: 422 with every problem for a bad one. */
  gracePeriodOf(body: unknown): number;
  (key: StoredKey, rotation: Rotation): Promise<Versioned<KeyWithSecret>>;
}

/** How a key is rotated, and by whom. */
export interface Rotation {
  /** The caller's account tier when known: a key above it is not rotated (403). */
  accountTier: string | undefined;
  /** How long the replaced secret keeps working (`gracePeriodOf`); 0: it stops at once. */
  graceSeconds: number;
  actor: EventActor;
  /** The versions the key must be at (412 otherwise); absent: any. */
  precondition?: VersionPrecondition | undefined;
}

export function rotateKeyOperation(ops: KeyOperations): RotateKey {
  const { ctx } = ops;
  const rotate = async (
    key: StoredKey,
    { accountTier, graceSeconds, actor, precondition }: Rotation,
  ): Promise<Versioned<KeyWithSecret>> => {
    const now = ctx.clock.now();
    refuseIfGone(key, now);
    refuseTierAboveAccount(ctx, key, accountTier);
    if (precondition && !precondition.versions.includes(key.version)) {
      throw preconditionFailedError();
    }
    // The new secret stays in the key's environment.
    const { secret, secretHash, hint } = ops.newSecret(ctx.environments.prefixForKey(key));
    const rotation = {
      id: key.id,
      expectedHash: key.secretHash,
      secretHash,
      hint,
      rotatedAt: now,
      // No grace drops any earlier one too: the contract's immediate cut-off, for both secrets.
      previousSecretExpiresAt: graceSeconds > 0 ? now + graceSeconds * 1000 : null,
      // With a precondition, any change since the read (not only another rotation) stops it.
      ...(precondition ? { expectedVersion: key.version } : {}),
      ...(await fieldsOfRotation(ctx, { id: key.id, secret, now })),
    };
    const rotated = await ops.commit({ kind: "rotated", key, rotation }, actor);
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
    return {
      record: { ...(await ops.records.one(rotated, now)), key: secret },
      version: rotated.version,
    };
  };
  return Object.assign(rotate, {
    gracePeriodOf(body: unknown): number {
      if (!ctx.gracefulRotation) return 0;
      const checked = validateRotateKeyBody(ctx.gracefulRotation.body, body);
      if (!checked.ok) throw new KeywardError("validation_failed", checked.issues);
      return checked.value.gracePeriodSeconds ?? 0;
    },
  });
}

/** The feature fields the features' hooks write with a rotation, as its spread. */
async function fieldsOfRotation(
  ctx: KeyOperations["ctx"],
  draft: RotateDraft,
): Promise<{ fields?: FeatureFieldChanges }> {
  let fields: FeatureFieldChanges = {};
  for (const hook of ctx.writes.beforeRotate) {
    if (hook.run) fields = { ...fields, ...(await hook.run(draft, ctx.writeKit)) };
  }
  return Object.keys(fields).length === 0 ? {} : { fields };
}
