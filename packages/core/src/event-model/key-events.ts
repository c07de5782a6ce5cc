/**
 * The events of each key change, built before the change is written so that the store can write
 * them in the same atomic step. Each holds exactly what the change sets, never a value read
 * earlier that a concurrent change may have replaced, and never a secret or a hash.
 */
import { isoTime } from "../api/key-record.js";
import { type KeyField, shownFields } from "../keys/key-field.js";
import type { KeyLimits } from "../limits/types.js";
import type { RandomSource } from "../random.js";
import type { KeyUpdate, StoredKey } from "../storage/key-store.js";
import type {
  EventActor,
  EventDataByType,
  EventKeyLimits,
  EventType,
  StoredEvent,
} from "./event.js";
import { generateEventId } from "./event-id.js";

export interface KeyEventBuilder {
  created(key: StoredKey, actor: EventActor): StoredEvent[];
  /**
   * `key` as read before the rotation; its hint is the one the compare-and-set replaces.
   * `graceEnd`: the end of the replaced secret's grace, or null when it stops at once.
   */
  rotated(
    key: StoredKey,
    newHint: string,
    at: number,
    actor: EventActor,
    graceEnd: number | null,
  ): StoredEvent[];
  /**
   * `key.updated` for the fields that change (none when every given value is the current one),
   * and `key.disabled` or `key.enabled` when the enabled state changes.
   */
  updated(key: StoredKey, changes: KeyUpdate, at: number, actor: EventActor): StoredEvent[];
  revoked(key: StoredKey, at: number, actor: EventActor): StoredEvent[];
  /** `key.leaked`: a secret scanner's report about the key (written on its own, not with a change). */
  leaked(
    key: StoredKey,
    at: number,
    actor: EventActor,
    data: EventDataByType["key.leaked"],
  ): StoredEvent;
  /** `key.revealed`: a user was shown the secret again (written on its own, not with a change). */
  revealed(key: StoredKey, at: number, actor: EventActor): StoredEvent;
  /** `key.imported`: the key, as an import (`imports()`) stored it at `at`. */
  imported(key: StoredKey, at: number, actor: EventActor): StoredEvent;
}

/** @param fields the listed features' key fields: those with an event schema are written in events */
export function keyEventBuilder(
  random: RandomSource,
  fields: readonly KeyField[] = [],
): KeyEventBuilder {
  const event = <T extends EventType>(
    type: T,
    key: StoredKey,
    occurredAt: number,
    actor: EventActor,
    data: EventDataByType[T],
  ): StoredEvent =>
    ({
      id: generateEventId(random),
      type,
      occurredAt,
      owner: { type: key.ownerType, id: key.ownerId },
      keyId: key.id,
      actor,
      data,
    }) as StoredEvent;

  return {
    created: (key, actor) => [
      event("key.created", key, key.createdAt, actor, {
        name: key.name,
        scopes: [...key.scopes],
        tier: key.tier,
        expiresAt: key.expiresAt === null ? null : isoTime(key.expiresAt),
        hint: key.hint,
        createdBy: key.createdBy,
        ...(key.metadata === null ? {} : { metadata: key.metadata }),
        ...(key.environment == null ? {} : { environment: key.environment }),
        ...shownFields(key.fields, fields, "event"),
      }),
    ],

    rotated: (key, newHint, at, actor, graceEnd) => [
      event("key.rotated", key, at, actor, {
        previousHint: key.hint,
        hint: newHint,
        ...(graceEnd === null ? {} : { previousSecretExpiresAt: isoTime(graceEnd) }),
      }),
    ],

    updated(key, changes, at, actor) {
      const changed: EventDataByType["key.updated"]["changes"] = {};
      if (changes.name !== undefined && changes.name !== key.name) changed.name = changes.name;
      if (changes.scopes !== undefined && !sameJson(changes.scopes, key.scopes)) {
        changed.scopes = [...changes.scopes];
      }
      if (changes.metadata !== undefined && !sameJson(changes.metadata, key.metadata)) {
        changed.metadata = changes.metadata;
      }
      for (const field of fields) {
        const value = changes.fields?.[field.name];
        if (value === undefined || field.schema?.event === undefined) continue;
        if (!sameJson(value, key.fields?.[field.name] ?? null)) {
          changed[field.name] = structuredClone(value);
        }
      }
      if (changes.limits !== undefined && !sameJson(changes.limits, key.limits ?? null)) {
        changed.limits = changes.limits === null ? null : eventLimits(changes.limits);
      }
      const events: StoredEvent[] = [];
      if (Object.keys(changed).length > 0) {
        events.push(event("key.updated", key, at, actor, { changes: changed }));
      }
      if (changes.disabledAt !== undefined) {
        const disabling = changes.disabledAt !== null;
        if (disabling && key.disabledAt === null) {
          events.push(event("key.disabled", key, at, actor, {}));
        } else if (!disabling && key.disabledAt !== null) {
          events.push(event("key.enabled", key, at, actor, {}));
        }
      }
      return events;
    },

    revoked: (key, at, actor) => [event("key.revoked", key, at, actor, {})],

    leaked: (key, at, actor, data) => event("key.leaked", key, at, actor, data),
    revealed: (key, at, actor) => event("key.revealed", key, at, actor, { hint: key.hint }),
    imported: (key, at, actor) =>
      event("key.imported", key, at, actor, {
        name: key.name,
        scopes: [...key.scopes],
        tier: key.tier,
        expiresAt: key.expiresAt === null ? null : isoTime(key.expiresAt),
        hint: key.hint,
        createdBy: key.createdBy,
        createdAt: isoTime(key.createdAt),
        ...(key.metadata === null ? {} : { metadata: key.metadata }),
        ...(key.environment == null ? {} : { environment: key.environment }),
      }),
  };
}

/** The limits as an event shows them: credits as granted, without when (the store's bookkeeping). */
function eventLimits(limits: KeyLimits): EventKeyLimits {
  const { credits, ...layers } = structuredClone(limits);
  if (!credits) return layers;
  const { grantedAt: _grantedAt, ...granted } = credits;
  return { ...layers, credits: granted };
}

/** Equal as JSON (scopes are lists, metadata objects); key order counts, which is conservative. */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
