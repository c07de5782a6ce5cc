import type { BaseRoot } from "@ark/schema";
import type { ValidationIssue } from "../errors/validation-issue.js";
import type { JsonSchema } from "../feature-interface/openapi-types.js";
import type { JsonValue } from "../storage/key-metadata.js";
import type { Schema } from "../validation/schema.js";

/**
 * A field a feature adds to a key (an IP allowlist, the resources a key is limited to): the
 * feature declares it at the kernel's `fields` point, and the kernel does the rest without knowing
 * it. The value is kept in the stored key's `fields` under `name` (the stores never look inside),
 * taken from the create and update bodies with the given schemas, shown on the key record and in
 * `key.created` / `key.updated` events when a schema for them is given, and described in the
 * OpenAPI document from the same declaration. A field with neither `create` nor `update` is one the
 * feature writes itself (a sealed secret, say), through its write hooks; a field with `fromUse` is
 * one each use of the key writes (the client address of its last use, say).
 */
export interface KeyField<Value extends JsonValue = JsonValue> {
  /** The field's name in the bodies, on the record, in events and in `StoredKey.fields`. */
  readonly name: string;
  /** Taken from the create body with this schema (its output is stored); absent: not on create. */
  readonly create?: Schema<Value>;
  /** Taken from the update body with this schema; null removes the field. Absent: not on update. */
  readonly update?: Schema<Value | null>;
  /**
   * For a field that may only narrow (as scopes): what a change from `current` (null: the key has
   * none) to `requested` would widen, as issues of the update body. Empty: the change is allowed.
   */
  widens?(current: Value | null, requested: Value): ValidationIssue[];
  /** How the OpenAPI document describes the field; a part left out is not shown there. */
  readonly schema?: {
    /** The create body's property (JSON Schema). */
    readonly create?: JsonSchema;
    /** The update body's property (JSON Schema). */
    readonly update?: JsonSchema;
    /** The key record's property: given, the stored value is shown on every record that has one. */
    readonly record?: BaseRoot;
    /**
     * The property of `key.created` (and, or null, of `key.updated`'s changes): given, the value
     * is written into those events.
     */
    readonly event?: BaseRoot;
    /** The usage report's property (`GET {basePath}/{key_id}/usage`), for a `fromUse` field. */
    readonly usage?: BaseRoot;
  };
  /**
   * The value is when the key was last used before Keyward knew it (epoch ms, `imports()`): the
   * key's `lastUsedAt` until Keyward counts a use of its own.
   */
  readonly lastUse?: boolean;
  /**
   * A field each counted use of the key writes: its value from the verified request (undefined:
   * this use writes none). Kept with the key's usage, never in the stored key: the latest use that
   * wrote any such field keeps its values, last write wins across instances, sent with the use's
   * count at no store call of its own (`keys/use-fields.ts`). Shown on records (`schema.record`)
   * and on the usage report (`schema.usage`). Called for every counted use: keep it cheap, and
   * return the same value for the same request data (the kernel reuses its encoding then).
   */
  fromUse?(request: UseRequest): Value | undefined;
}

/** What a `fromUse` field reads of a verified request. */
export interface UseRequest {
  /** The client's address as the adapter read it, when it passed one. */
  readonly clientIp?: string | undefined;
}

/** Every listed feature's fields, checked: a name declared twice is a configuration error. */
export function checkedKeyFields(fields: readonly KeyField[]): readonly KeyField[] {
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.name)) {
      throw new TypeError(
        `Keyward: two features declare the key field \`${field.name}\`; list one of them`,
      );
    }
    seen.add(field.name);
  }
  return fields;
}

/**
 * The fields of `stored` shown on a key's record (or in events, or on its usage report): those
 * declared with a schema for `where`, deep-copied.
 */
export function shownFields(
  stored: Readonly<Record<string, JsonValue>> | undefined,
  fields: readonly KeyField[],
  where: "record" | "event" | "usage",
): Record<string, JsonValue> {
  const shown: Record<string, JsonValue> = {};
  if (stored === undefined) return shown;
  for (const field of fields) {
    const value = stored[field.name];
    if (value !== undefined && field.schema?.[where] !== undefined) {
      shown[field.name] = structuredClone(value);
    }
  }
  return shown;
}

/** When the key was last used before Keyward knew it (a `lastUse` field), or null. */
export function earlierLastUse(
  stored: Readonly<Record<string, JsonValue>> | undefined,
  fields: readonly KeyField[],
): number | null {
  for (const field of fields) {
    const value = stored?.[field.name];
    if (field.lastUse && typeof value === "number") return value;
  }
  return null;
}
