/**
 * A change to a key, as one compare-and-set on the version of the record it was computed from: the
 * record written is that one with the change, and the events say exactly what changed. When a
 * concurrent change wins, the change is checked again against the record it left (a narrowing of
 * scopes that record no longer has is a 422, never a widening) and tried again, a few times; with
 * a `precondition` (HTTP `If-Match`) it is not: 412.
 */

import { KeywardError } from "../../errors/keyward-error.js";
import type { ValidationIssue } from "../../errors/validation-issue.js";
import type { EventActor } from "../../event-model/event-actor.js";
import type { KeyField } from "../../keys/key-field.js";
import {
  hasLimits,
  limitsAfter,
  limitsNotAllowed,
  takeLimits,
} from "../../limits/limits-change.js";
import type { KeyLimits } from "../../limits/types.js";
import type { KeyUpdate, StoredKey } from "../../storage/key-store.js";
import { type UpdateKeyBody, validateUpdateKeyBody } from "../../validation/update-key-body.js";
import type { Versioned, VersionPrecondition } from "../key-api-types.js";
import type { KeyRecord } from "../key-record.js";
import { keyNotFoundError, preconditionFailedError, revokedError } from "./key-errors.js";
import type { KeyOperations } from "./key-operations.js";
import { requireLimitsSupport } from "./limits-support.js";

/**
 * @param actor who asks: the operator (`keys.update`, the host's own code) may also change
 *   `limits`; a user through the PATCH endpoint may not (the body is the key owner's).
 */
export type UpdateKey = (
  key: StoredKey,
  body: unknown,
  actor: EventActor,
  precondition?: VersionPrecondition,
) => Promise<Versioned<KeyRecord>>;

/**
 * How many times an update without a precondition is tried against a fresh read of the key when
 * concurrent changes keep winning; past it, 409. Each loss means another change was written, so
 * this bounds the work of one request, not anyone's progress: with fewer concurrent writers of
 * one key than this, every one of them gets through.
 */
const updateAttempts = 10;

export function updateKeyOperation(ops: KeyOperations): UpdateKey {
  const { ctx } = ops;

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

  return async (key, body, actor, precondition) => {
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
      // A feature field that may only narrow, like scopes, says what would widen.
      if (checked.ok) issues.push(...widenedFieldIssues(ctx.keyFields, current, checked.value));
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
      if (limits !== undefined) requireLimitsSupport(ctx, limits);
      const changes = await withHookFields(
        ctx,
        current.id,
        changesOf(current, checked.value, limits, now),
        now,
      );
      const updated = await ops.commit({ kind: "updated", key: current, changes, at: now }, actor);
      if (updated) return { record: await ops.records.one(updated, now), version: updated.version };
      // Revoked, changed by someone else, or deleted by hand between the read and the write.
      const fresh = await ctx.keys.findById(key.id);
      if (!fresh) throw keyNotFoundError();
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
}

/** What an update writes to `key`: the body's fields, each only when given. */
function changesOf(
  key: StoredKey,
  value: UpdateKeyBody,
  limits: KeyLimits | null | undefined,
  now: number,
): KeyUpdate {
  const { name, scopes, metadata, enabled, fields } = value;
  return {
    ...(name === undefined ? {} : { name }),
    ...(scopes === undefined ? {} : { scopes }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(fields === undefined ? {} : { fields }),
    // Disabling a disabled key keeps the time it was first disabled.
    ...(enabled === undefined ? {} : { disabledAt: enabled ? null : (key.disabledAt ?? now) }),
    // Enabling a disabled key is recorded: the inactivity scan counts from it, as from a use.
    ...(enabled === true && key.disabledAt !== null ? { enabledAt: now } : {}),
    ...(limits === undefined ? {} : { limits }),
  };
}

/** What the body's narrowing-only feature fields would widen, against `key`'s current values. */
function widenedFieldIssues(
  fields: readonly KeyField[],
  key: StoredKey,
  value: UpdateKeyBody,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const field of fields) {
    const requested = value.fields?.[field.name];
    if (field.widens === undefined || requested === undefined || requested === null) continue;
    issues.push(...field.widens(key.fields?.[field.name] ?? null, requested));
  }
  return issues;
}

/** `changes` with the feature fields the features' `beforeUpdate` hooks add to the same write. */
async function withHookFields(
  ctx: KeyOperations["ctx"],
  id: string,
  changes: KeyUpdate,
  now: number,
): Promise<KeyUpdate> {
  let fields = changes.fields;
  for (const hook of ctx.writes.beforeUpdate) {
    const added = await hook.run({ id, fields: fields ?? {}, now }, ctx.writeKit);
    if (added !== undefined) fields = { ...fields, ...added };
  }
  return fields === undefined ? changes : { ...changes, fields };
}
