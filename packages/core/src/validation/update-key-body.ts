import type { ValidationIssue } from "../errors/validation-issue.js";
import type { KeyField } from "../keys/key-field.js";
import type { JsonValue, KeyMetadata } from "../storage/key-store.js";
import type { keyFieldSchemas } from "./create-key-body.js";
import { notAnObjectIssue, pydanticMeta, toValidationIssues } from "./issues.js";
import { metadataSchema } from "./metadata.js";
import { checked, isRefusal, objectSchema, type Schema } from "./schema.js";

/** The body of `PATCH /api-keys/{key_id}`, once validated: every field optional. */
export interface UpdateKeyBody {
  name?: string;
  /** The key's new scopes: a subset of the ones it has (checked against the key, not here). */
  scopes?: string[];
  /** A new metadata object, or null to remove it. */
  metadata?: KeyMetadata | null;
  enabled?: boolean;
  /**
   * The listed features' key fields the body gave, as their schemas output them (null: remove the
   * field). A field that may only narrow is checked against the key, not here.
   */
  fields?: Record<string, JsonValue | null>;
}

export type UpdateKeyValidation =
  | { ok: true; value: UpdateKeyBody }
  | { ok: false; issues: ValidationIssue[] };

/** The fields each update schema takes; any other is a 422 (see `extraFieldIssues`). */
const acceptedFields = new WeakMap<object, ReadonlySet<string>>();

/** The feature fields each update schema takes, by name. */
const featureFieldsOf = new WeakMap<object, readonly string[]>();

/**
 * The update schema from the same field rules as create: a name or scopes valid there are valid
 * here. The listed features' key fields with an `update` schema are taken too; any other field is
 * refused.
 */
export function updateKeyBodySchema(
  fields: ReturnType<typeof keyFieldSchemas>,
  keyFields: readonly KeyField[] = [],
): Schema<CheckedUpdateKeyBody> {
  const updatable = keyFields.filter((field) => field.update !== undefined);
  const schema = objectSchema<CheckedUpdateKeyBody>({
    optional: {
      name: fields.name,
      scopes: fields.scopes,
      metadata: metadataSchema({ nullable: true }),
      enabled,
      ...Object.fromEntries(updatable.map((field) => [field.name, field.update!])),
    },
  });
  const featureNames = updatable.map((field) => field.name);
  acceptedFields.set(schema, new Set(["name", "scopes", "metadata", "enabled", ...featureNames]));
  featureFieldsOf.set(schema, featureNames);
  return schema;
}

/** The update body as its schema returns it. */
interface CheckedUpdateKeyBody {
  name?: string;
  scopes?: string[];
  metadata?: Record<string, unknown> | null;
  enabled?: boolean;
  [featureField: string]: unknown;
}

const enabled = checked<boolean>(
  (value, ctx) =>
    typeof value === "boolean" ||
    ctx.reject({
      expected: "a boolean",
      actual: typeof value,
      meta: pydanticMeta("bool_type", "Input should be a valid boolean"),
    }),
);

/**
 * Validates a PATCH body (or `keys.update`'s changes without `limits`). Unlike create's, a field it
 * does not know is refused, each one named: a PATCH that answered 200 while ignoring `tier` or
 * `expiresAt` would tell the caller a change was made that was not.
 */
export function validateUpdateKeyBody(
  schema: ReturnType<typeof updateKeyBodySchema>,
  input: unknown,
): UpdateKeyValidation {
  const notAnObject = notAnObjectIssue(input);
  if (notAnObject) return { ok: false, issues: notAnObject };
  const result = schema(input);
  const extra = extraFieldIssues(input as object, acceptedFields.get(schema) ?? new Set());
  if (isRefusal(result) || extra.length > 0) {
    const issues = isRefusal(result) ? toValidationIssues(result, "body") : [];
    return { ok: false, issues: [...issues, ...extra] };
  }
  const value: UpdateKeyBody = {};
  if (result.name !== undefined) value.name = result.name;
  if (result.scopes !== undefined) value.scopes = result.scopes;
  if (result.metadata !== undefined) value.metadata = result.metadata as KeyMetadata | null;
  if (result.enabled !== undefined) value.enabled = result.enabled;
  const fields: Record<string, JsonValue | null> = {};
  for (const name of featureFieldsOf.get(schema) ?? []) {
    if (result[name] !== undefined) fields[name] = result[name] as JsonValue | null;
  }
  if (Object.keys(fields).length > 0) value.fields = fields;
  return { ok: true, value };
}

/** One issue per field of `body` that an update does not have, in the body's order (FastAPI's `extra="forbid"`). */
function extraFieldIssues(body: object, accepted: ReadonlySet<string>): ValidationIssue[] {
  return Object.keys(body)
    .filter((field) => !accepted.has(field))
    .map((field) => ({
      loc: ["body", field],
      msg: "Extra inputs are not permitted",
      type: "extra_forbidden",
    }));
}
