import type { ValidationIssue } from "../errors/validation-issue.js";
import type { Schema } from "../validation/schema.js";

/** The most kinds one key may be limited in. */
export const maxResourceKinds = 20;
/** The most ids of one kind a key may list. */
export const maxResourceIds = 100;
/** The longest resource id, in characters. */
export const maxResourceIdLength = 256;
/** A kind's name: a letter, then letters, digits and `_ . : -`, at most 64 characters. */
export const resourceKindPattern = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/**
 * The resources a key is limited to, by kind: `{ profile: ["alice"] }`. A key limits only the
 * kinds it names (a route about another kind, or about none, is not limited by them); absent or
 * null: every resource, as a key without them always was.
 */
export type KeyResourceLimits = Readonly<Record<string, readonly string[]>>;

/**
 * Resource-limited keys, the body fields: the kernel's extension point for `permissions()`, which
 * also adds the key check (`resource` on a guard). Without it, `resources` is refused on create and
 * update (422), and a key stored with resources is refused wherever a route names a resource: a
 * limit is never ignored.
 */
export interface ResourceLimitFields {
  /** `resources` on create. */
  createField: Schema<Record<string, string[]>>;
  /** `resources` on update: a narrower map (checked against the key by `widened`). */
  updateField: Schema<Record<string, string[]>>;
  /**
   * What a change from `current` to `requested` would widen, as issues of the update body: a key's
   * resources can only be narrowed. Empty: a narrowing (or the same).
   */
  widened(current: KeyResourceLimits | null, requested: KeyResourceLimits): ValidationIssue[];
}
