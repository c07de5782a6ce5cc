/**
 * `components` of the document: every schema converted from its arktype type, the shared
 * responses and header fields, and the two security schemes.
 */
import type { BaseRoot } from "@ark/schema";
import type { EventTypes } from "../../event-model/event-types.js";
import type { InstanceDescription } from "../../feature-interface/openapi-contribution.js";
import type { JsonSchema, OpenApiDocument } from "../../feature-interface/openapi-types.js";
import type { KeyField } from "../../keys/key-field.js";
import { errorResponseComponents, headerComponents } from "./responses.js";
import {
  createKeyBodyJsonSchema,
  rotateKeyBodyJsonSchema,
  updateKeyBodyJsonSchema,
} from "./schemas/create-key-body.js";
import {
  codeIsConfigured,
  errorBodyType,
  errorCodes,
  validationErrorBodyType,
  validationIssueType,
} from "./schemas/error-body.js";
import { eventJsonSchemas } from "./schemas/event.js";
import { keyRecordTypes } from "./schemas/key-record.js";
import { scopeTypes } from "./schemas/scope-list.js";
import { usageReportType, withUsageSections } from "./schemas/usage-report.js";

/** Names of the security schemes, as operations' `security` refers to them. */
export const securitySchemeNames = { session: "userJwt", apiKey: "apiKey" } as const;

export function buildComponents(context: InstanceDescription): OpenApiDocument["components"] {
  const scopes = context.scopes.names;
  const tiers = context.tiers.names;
  const { scope, tier, list: scopeList } = scopeTypes(scopes, tiers);
  const keys = keyRecordTypes({
    scopes,
    tiers,
    keyPrefixes: context.keyPrefixes,
    environments: context.environments,
    fields: context.keyFields,
  });
  const prefixes = context.keyPrefixes.map((prefix) => `\`${prefix}\``).join(" or ");
  const schemas: Record<string, JsonSchema> = {
    Scope: inConfiguredOrder(toJson(scope), scopes),
    Tier: inConfiguredOrder(toJson(tier), tiers),
    CreateKeyBody: createKeyBodyJsonSchema(
      context.createKeyBody,
      context.environmentsConfigured ? context.environments : undefined,
      context.keyFields,
    ),
    ...(context.keyUpdates
      ? { UpdateKeyBody: updateKeyBodyJsonSchema(context.updateKeyBody, context.keyFields) }
      : {}),
    ...(context.rotateKeyBody
      ? {
          RotateKeyBody: rotateKeyBodyJsonSchema(
            context.rotateKeyBody.schema,
            context.rotateKeyBody.maxGracePeriodSeconds,
          ),
        }
      : {}),
    KeyRecord: toJson(keys.record),
    KeyWithSecret: toJson(keys.withSecret),
    KeyList: toJson(keys.list),
    KeyPage: toJson(keys.page),
    RevokedKey: toJson(keys.revoked),
    ScopeList: toJson(scopeList),
    UsageReport: withUsageSections(
      toJson(usageReportType(context.keyFields)),
      context.usageSections,
    ),
    ...(context.events ? eventComponents(context.keyFields, context.eventTypes) : {}),
    ValidationIssue: toJson(validationIssueType),
    ValidationError: toJson(validationErrorBodyType),
    Error: toJson(errorBodyType(errorCodes.filter((code) => codeIsConfigured(code, context)))),
  };
  return {
    schemas,
    responses: errorResponseComponents(context),
    headers: headerComponents(context),
    parameters: {
      KeyId: {
        name: "key_id",
        in: "path",
        required: true,
        description: "The key's id, as its record shows it",
        schema: { type: "string" },
      },
      IfMatch: {
        name: "If-Match",
        in: "header",
        required: false,
        description:
          "The `ETag` of the key as last seen (or several, comma-separated): the change applies only if the key is still at that version, else 412 `precondition_failed`. Strong comparison: a weak tag never matches. `*`: any version.",
        schema: { type: "string" },
      },
    },
    securitySchemes: {
      [securitySchemeNames.session]: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description:
          "The user's session token (JWT). Key management takes only this; an API key there is refused with 403.",
      },
      [securitySchemeNames.apiKey]: {
        type: "http",
        scheme: "bearer",
        bearerFormat: `API key (${context.keyPrefixes.map((prefix) => `${prefix}…`).join(", ")})`,
        description: `An API key, ${prefixes} followed by 36 base62 characters. The roles listed on an operation are the scopes the key needs. A key with an IP allowlist is refused (403 \`ip_not_allowed\`) from any other address.`,
      },
    },
  };
}

/**
 * arktype sorts an enumeration's members; the configured order carries meaning (tiers are ranked
 * lowest first), so the enum is put back in it, once checked to hold the same members.
 */
function inConfiguredOrder(schema: JsonSchema, names: readonly string[]): JsonSchema {
  const members =
    (schema.enum as unknown[] | undefined) ?? ("const" in schema ? [schema.const] : []);
  const same = members.length === names.length && names.every((name) => members.includes(name));
  if (!same) throw new Error(`unreachable: enumeration ${JSON.stringify(schema)} is not ${names}`);
  const { const: _single, ...rest } = schema;
  return { ...rest, enum: [...names] };
}

function eventComponents(
  fields: readonly KeyField[],
  types: EventTypes,
): Record<string, JsonSchema> {
  const { event, page } = eventJsonSchemas(fields, types);
  return { Event: event, EventPage: page };
}

function toJson(schema: BaseRoot): JsonSchema {
  return schema.toJsonSchema({ dialect: null }) as JsonSchema;
}
