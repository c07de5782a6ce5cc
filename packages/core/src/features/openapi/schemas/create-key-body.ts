/**
 * Request bodies (`POST {basePath}`, and `PATCH {basePath}/{key_id}` with `keyUpdates`), converted
 * from the very arktype schemas that validate them (`createKeyBodySchema`, `updateKeyBodySchema`)
 * with arktype's own `toJsonSchema`. Two things JSON Schema cannot carry
 * are handled here, explicitly:
 *
 * - morphs (the trimming of `name`): the document describes what a client sends, so the schema's
 *   input side (`.in`) is converted;
 * - narrows (arbitrary functions: known scopes, no duplicates, configured tiers, the date-time
 *   rules): each field's narrow is replaced by the JSON Schema keywords that say the same, as far
 *   as JSON Schema can (the "in the future" rule stays in prose).
 *
 * A field that gains a narrow with no entry below makes generation throw, so the document can
 * never silently claim less than the validator checks.
 */

import type { JsonSchema } from "../../../feature-interface/openapi-types.js";
import type { KeyField } from "../../../keys/key-field.js";
import { maxKeyNameLength } from "../../../validation/key-name.js";
import { maxMetadataBytes } from "../../../validation/metadata.js";
import { maxOwnerIdLength } from "../../../validation/owner-id.js";
import type { Schema } from "../../../validation/schema.js";
import { componentRef } from "./component-ref.js";

type Refinement = (converted: JsonSchema) => JsonSchema;

const metadataObject: JsonSchema = {
  type: "object",
  // Any members (`{}`, as arktype writes it for records): clients type it as a map of JSON values.
  additionalProperties: {},
  description: `Any JSON object, at most ${maxMetadataBytes} bytes as UTF-8 JSON; Keyward stores it and returns it on the key's record.`,
};

const keyName: Refinement = (converted) => ({
  ...converted,
  minLength: 1,
  maxLength: maxKeyNameLength,
  description: `1–${maxKeyNameLength} characters after trimming surrounding whitespace; no control, bidirectional-override or lone-surrogate characters.`,
});

/** What each create-key field's narrow checks, in JSON Schema. */
const createKeyFields: Record<string, Refinement> = {
  name: keyName,
  scopes: (converted) => ({
    ...converted,
    items: componentRef("Scope"),
    uniqueItems: true,
    description: "Configured scopes, at least one, without duplicates.",
  }),
  tier: () => componentRef("Tier"),
  expiresAt: () => ({
    anyOf: [
      {
        type: "string",
        format: "date-time",
        description:
          "ISO 8601 with a timezone offset, in the future, at most 9999-12-31T23:59:59Z.",
      },
      { type: "null" },
    ],
    description: "When the key stops working; omitted or null for never.",
  }),
  metadata: () => metadataObject,
  // Only with `environments`: the schema then names them (see `createKeyBodyJsonSchema`).
  environment: (converted) => ({
    ...converted,
    type: "string",
    description:
      "The environment the key is for; its secret gets that environment's prefix. Omitted: the first configured.",
  }),
  organizationId: () => ({
    type: "string",
    minLength: 1,
    maxLength: maxOwnerIdLength,
    description: `Create the key for this organization (the caller must be a member whose role may create keys); omitted for the caller's own key. 1–${maxOwnerIdLength} characters, no control, bidirectional-override or lone-surrogate characters.`,
  }),
};

/** What each update-key field's narrow checks, in JSON Schema. Every field is optional. */
const updateKeyFields: Record<string, Refinement> = {
  name: keyName,
  scopes: (converted) => ({
    ...converted,
    items: componentRef("Scope"),
    uniqueItems: true,
    description:
      "The key's new scopes, at least one, without duplicates: a subset of those it has (scopes can be narrowed, never widened).",
  }),
  metadata: () => ({
    anyOf: [metadataObject, { type: "null" }],
    description: "Replaces the key's metadata; null removes it.",
  }),
  enabled: () => ({
    type: "boolean",
    description: "false disables the key (it is refused until enabled again); true enables it.",
  }),
};

/** Marks the schemas arktype produced for a narrow, so the refinement pass can find them all. */
const narrowed = new WeakSet<JsonSchema>();

/** @param environments the configured environments' names, when `environments` is configured */
export function createKeyBodyJsonSchema(
  schema: Schema<unknown>,
  environments: readonly string[] | undefined,
  keyFields: readonly KeyField[],
): JsonSchema {
  const fields = environments
    ? {
        ...createKeyFields,
        environment: (converted: JsonSchema) => ({
          ...createKeyFields.environment!(converted),
          enum: [...environments],
        }),
      }
    : createKeyFields;
  return requestBodyJsonSchema(
    schema,
    fields,
    "create-key",
    featureFieldSchemas(keyFields, "create"),
  );
}

export function updateKeyBodyJsonSchema(
  schema: Schema<unknown>,
  keyFields: readonly KeyField[],
): JsonSchema {
  // A field an update does not have is refused (422 `extra_forbidden`), unlike create's.
  return {
    ...requestBodyJsonSchema(
      schema,
      updateKeyFields,
      "update-key",
      featureFieldSchemas(keyFields, "update"),
    ),
    additionalProperties: false,
  };
}

/**
 * The body properties the listed features' key fields describe themselves (`KeyField.schema`):
 * they stand as given, in place of whatever arktype converted.
 */
function featureFieldSchemas(
  keyFields: readonly KeyField[],
  body: "create" | "update",
): Record<string, JsonSchema> {
  const described: Record<string, JsonSchema> = {};
  for (const field of keyFields) {
    const schema = field.schema?.[body];
    if (field[body] === undefined) continue;
    if (schema === undefined) {
      throw new Error(
        `Keyward OpenAPI: the key field "${field.name}" is taken on ${body} but has no schema.${body} to describe it`,
      );
    }
    described[field.name] = schema;
  }
  return described;
}

/** The rotate body (`gracefulRotation`): its one field's narrow, as the range it checks. */
export function rotateKeyBodyJsonSchema(
  schema: Schema<unknown>,
  maxGracePeriodSeconds: number,
): JsonSchema {
  return requestBodyJsonSchema(
    schema,
    {
      gracePeriodSeconds: () => ({
        type: "integer",
        minimum: 0,
        maximum: maxGracePeriodSeconds,
        description: `How long the replaced secret keeps working, in whole seconds, at most ${maxGracePeriodSeconds}; 0 or omitted: it stops at once.`,
      }),
    },
    "rotate-key",
  );
}

function requestBodyJsonSchema(
  schema: Schema<unknown>,
  narrowedFields: Record<string, Refinement>,
  body: string,
  featureFields: Record<string, JsonSchema> = {},
): JsonSchema {
  const converted = schema.rawIn.toJsonSchema({
    dialect: null,
    fallback: {
      predicate: (context) => {
        const marked = { ...context.base } as JsonSchema;
        narrowed.add(marked);
        return marked as never;
      },
      morph: () => {
        throw new Error("unreachable: the input side of a schema has no morphs");
      },
    },
  }) as JsonSchema;
  if (narrowed.has(converted)) {
    throw new Error(`Keyward OpenAPI: the ${body} body has a top-level narrow with no JSON Schema`);
  }
  const properties = { ...(converted.properties as Record<string, JsonSchema>) };
  for (const [field, fieldSchema] of Object.entries(properties)) {
    const described = featureFields[field];
    if (described !== undefined) {
      properties[field] = described;
      continue;
    }
    const refine = narrowedFields[field];
    if (narrowed.has(fieldSchema)) {
      if (!refine) {
        throw new Error(
          `Keyward OpenAPI: the ${body} field "${field}" has a check (a narrow) that JSON Schema cannot express; describe it in openapi/schemas/create-key-body.ts`,
        );
      }
      properties[field] = refine(fieldSchema);
    } else if (refine) {
      throw new Error(
        `Keyward OpenAPI: the ${body} field "${field}" has a JSON Schema refinement but no narrow; remove the stale refinement`,
      );
    }
    assertNoNestedNarrow(body, field, properties[field] as JsonSchema);
  }
  // Unknown fields are ignored on create, not refused (the contract: a client that sends a field
  // from a newer version still creates its key); the update body closes itself
  // (`updateKeyBodyJsonSchema`).
  return { ...converted, properties };
}

function assertNoNestedNarrow(body: string, field: string, value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  if (narrowed.has(value as JsonSchema)) {
    throw new Error(
      `Keyward OpenAPI: a nested check in the ${body} field "${field}" has no JSON Schema; describe it in openapi/schemas/create-key-body.ts`,
    );
  }
  for (const child of Object.values(value)) assertNoNestedNarrow(body, field, child);
}
