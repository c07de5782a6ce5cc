import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { Clock } from "../clock.js";
import type { ValidationIssue } from "../errors/validation-issue.js";
import type { KeyField } from "../keys/key-field.js";
import { unlistedRestrictions } from "../keys/restricting-fields.js";
import type { ScopeRegistry } from "../scopes/scope-registry.js";
import type { JsonValue, KeyMetadata } from "../storage/key-store.js";
import type { TierLadder } from "../tiers/tier-ladder.js";
import { parseIsoDateTime } from "./iso-date-time.js";
import { notAnObjectIssue, pydanticMeta, toValidationIssues } from "./issues.js";
import { checkKeyName } from "./key-name.js";
import { metadataSchema } from "./metadata.js";
import { ownerIdProblem } from "./owner-id.js";
import {
  checked,
  checkedString,
  checkedStringList,
  isRefusal,
  objectSchema,
  type Schema,
  transformed,
} from "./schema.js";

/** The latest `expiresAt` accepted: the last second with a four-digit year. */
export const latestExpiresAt = Date.UTC(9999, 11, 31, 23, 59, 59);

/** The body of `POST /api-keys`, once validated. */
export interface CreateKeyBody {
  name: string;
  scopes: string[];
  tier: string;
  expiresAt?: string | undefined;
  /** The host's own data about the key: a JSON object, at most 4 KiB serialized. */
  metadata?: KeyMetadata | undefined;
  /** The organization the key is for (only when `organizations` is configured). */
  organizationId?: string | undefined;
  /** The environment the key is for (only when `environments` are configured). */
  environment?: string | undefined;
  /** The listed features' key fields the body gave (`KeyField.create`), as their schemas output. */
  fields?: Record<string, JsonValue> | undefined;
}

export type CreateKeyValidation =
  | { ok: true; value: CreateKeyBody; expiresAt: number | null }
  | { ok: false; issues: ValidationIssue[] };

/** The create-key body as its schema returns it, before `validateCreateKeyBody` tidies it. */
interface CheckedCreateKeyBody {
  name: string;
  scopes: string[];
  tier: string;
  expiresAt?: string | null;
  metadata?: Record<string, unknown>;
  organizationId?: string;
  environment?: string;
  [featureField: string]: unknown;
}

/**
 * Builds the create-key schema for one deployment's scopes, tiers and clock. The result is an
 * arktype schema node (`schema.ts`), and so also a Standard Schema (`schema["~standard"]`) that any
 * Standard Schema consumer (form libraries, OpenAPI generators) can use. Every problem is reported
 * at once.
 */
export function createKeyBodySchema(options: {
  scopes: ScopeRegistry;
  tiers: TierLadder;
  clock: Clock;
  /** Accept `organizationId` (the `organizations` option); otherwise the field is ignored. */
  organizations?: boolean;
  /** The configured environments' names (`environments`); otherwise `environment` is ignored. */
  environments?: readonly string[] | undefined;
  /** The listed features' key fields: those with a `create` schema are taken from the body. */
  fields?: readonly KeyField[] | undefined;
}): Schema<CheckedCreateKeyBody> {
  const { name, scopes, tier, expiresAt } = keyFieldSchemas(options);
  const createFields = (options.fields ?? []).filter((field) => field.create !== undefined);
  const schema = objectSchema<CheckedCreateKeyBody>({
    required: { name, scopes, tier },
    optional: {
      expiresAt,
      metadata: metadataSchema({ nullable: false }),
      ...(options.organizations ? { organizationId: organizationIdSchema } : {}),
      ...(options.environments ? { environment: environmentSchema(options.environments) } : {}),
      ...Object.fromEntries(createFields.map((field) => [field.name, field.create!])),
    },
  });
  featureFieldsOf.set(
    schema,
    createFields.map((field) => field.name),
  );
  return schema;
}

/** The feature fields each create schema takes from the body, by name. */
const featureFieldsOf = new WeakMap<object, readonly string[]>();

/** One of the configured environments' names. */
function environmentSchema(names: readonly string[]) {
  return checked<string>((value, ctx) => {
    if (typeof value === "string" && names.includes(value)) return true;
    return ctx.reject({
      expected: "a configured environment",
      actual: typeof value === "string" ? JSON.stringify(value) : typeof value,
      meta:
        typeof value === "string"
          ? pydanticMeta("literal_error", `Input should be ${quoteList(names)}`)
          : pydanticMeta("string_type", "Input should be a valid string"),
    });
  });
}

/** The field schemas that create and update share, for one deployment's scopes, tiers and clock. */
export function keyFieldSchemas(options: {
  scopes: ScopeRegistry;
  tiers: TierLadder;
  clock: Clock;
}) {
  const { scopes, tiers, clock } = options;
  const allowedTiers = quoteList(tiers.names);

  const scopeList = checkedStringList(1, (list, ctx) => {
    const seen = new Set<string>();
    let valid = true;
    list.forEach((scope, index) => {
      if (!scopes.has(scope)) {
        valid = ctx.reject({
          relativePath: [index],
          expected: "a known scope",
          actual: JSON.stringify(scope),
          meta: pydanticMeta("literal_error", `Input should be ${quoteList(scopes.names)}`),
        });
      } else if (seen.has(scope)) {
        valid = ctx.reject({
          relativePath: [index],
          expected: "a scope not already listed",
          actual: JSON.stringify(scope),
          meta: pydanticMeta("value_error", `Value error, duplicate scope '${scope}'`),
        });
      }
      seen.add(scope);
    });
    return valid;
  });

  const tier = checkedString(
    (value, ctx) =>
      tiers.has(value) ||
      ctx.reject({
        expected: "a configured tier",
        actual: JSON.stringify(value),
        meta: pydanticMeta("literal_error", `Input should be ${allowedTiers}`),
      }),
  );

  // `unknown`, checked by hand, rather than `string | null`: arktype would report a number here as
  // a failed union in its own words; Pydantic (and so the contract) calls it `datetime_type`.
  const expiresAt = checked<string | null>((value, ctx) => {
    if (value === null) return true;
    if (typeof value !== "string") {
      return ctx.reject({
        expected: "an ISO 8601 date-time",
        actual: typeof value,
        meta: pydanticMeta("datetime_type", "Input should be a valid datetime"),
      });
    }
    const parsed = parseIsoDateTime(value);
    if (!parsed.ok) {
      return ctx.reject(
        parsed.reason === "timezone"
          ? {
              expected: "a date-time with a timezone offset",
              actual: JSON.stringify(value),
              meta: pydanticMeta("timezone_aware", "Input should have timezone info"),
            }
          : {
              expected: "an ISO 8601 date-time",
              actual: JSON.stringify(value),
              meta: pydanticMeta(
                "datetime_parsing",
                "Input should be a valid datetime in ISO 8601 format",
              ),
            },
      );
    }
    if (parsed.epochMs > latestExpiresAt) {
      // An offset can carry "9999-12-31T23:30:00-01:00" into year 10000, which ISO 8601 strings
      // (and so every response) could only show in expanded-year form.
      return ctx.reject({
        expected: "a date-time at most 9999-12-31T23:59:59Z",
        actual: JSON.stringify(value),
        meta: pydanticMeta(
          "less_than_equal",
          "Input should be less than or equal to 9999-12-31T23:59:59Z",
        ),
      });
    }
    return (
      parsed.epochMs > clock.now() ||
      ctx.reject({
        expected: "a date-time in the future",
        actual: JSON.stringify(value),
        meta: pydanticMeta("datetime_future", "Input should be in the future"),
      })
    );
  });

  // The rule is checked on the trimmed text, then the trimmed text is what the schema returns:
  // a check here (not in the morph) keeps the issues in field order.
  const name = transformed(
    checkedString((value, ctx) => {
      const checked = checkKeyName(value);
      return (
        checked.ok ||
        ctx.reject({
          expected: "a key name",
          actual: "",
          meta: pydanticMeta(checked.type, checked.msg),
        })
      );
    }),
    (value: string) => value.trim(),
  );

  return { name, scopes: scopeList, tier, expiresAt };
}

/** An organization id follows the owner-id rule: what a store can index, whoever the owner. */
const organizationIdSchema = checked<string>((value, ctx) => {
  if (typeof value !== "string") {
    return ctx.reject({
      expected: "a string",
      actual: typeof value,
      meta: pydanticMeta("string_type", "Input should be a valid string"),
    });
  }
  const problem = ownerIdProblem(value);
  return (
    problem === null ||
    ctx.reject({
      expected: "an organization id",
      actual: "",
      meta: pydanticMeta("value_error", `Value error, organizationId ${problem}`),
    })
  );
});

export type CreateKeyBodySchema = ReturnType<typeof createKeyBodySchema> &
  StandardSchemaV1<unknown, CreateKeyBody>;

/**
 * Validates an already-parsed JSON body; unknown extra fields are ignored, but a field that would
 * restrict the key where no listed feature declares it is refused (`restricting-fields.ts`). Every
 * problem is reported at once.
 */
export function validateCreateKeyBody(
  schema: ReturnType<typeof createKeyBodySchema>,
  input: unknown,
): CreateKeyValidation {
  const notAnObject = notAnObjectIssue(input);
  if (notAnObject) return { ok: false, issues: notAnObject };
  const result = schema(input);
  const declared = featureFieldsOf.get(schema) ?? [];
  const refused = unlistedRestrictions(input as object, new Set(declared));
  if (isRefusal(result) || refused.length > 0) {
    const issues = isRefusal(result) ? toValidationIssues(result, "body") : [];
    return { ok: false, issues: [...issues, ...refused] };
  }
  const expiresAt =
    typeof result.expiresAt === "string"
      ? (parseIsoDateTime(result.expiresAt) as { epochMs: number }).epochMs
      : null;
  return {
    ok: true,
    value: {
      name: result.name,
      scopes: result.scopes,
      tier: result.tier,
      expiresAt: typeof result.expiresAt === "string" ? result.expiresAt : undefined,
      ...(result.metadata === undefined ? {} : { metadata: result.metadata as KeyMetadata }),
      ...(typeof result.organizationId === "string"
        ? { organizationId: result.organizationId }
        : {}),
      ...(typeof result.environment === "string" ? { environment: result.environment } : {}),
      ...givenFields(result, declared),
    },
    expiresAt,
  };
}

function quoteList(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  return quoted.length <= 1
    ? (quoted[0] ?? "")
    : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

/** The declared feature fields the body gave, as `{ fields }`, or nothing when it gave none. */
function givenFields(
  result: Record<string, unknown>,
  declared: readonly string[],
): { fields?: Record<string, JsonValue> } {
  const fields: Record<string, JsonValue> = {};
  for (const name of declared) {
    if (result[name] !== undefined) fields[name] = result[name] as JsonValue;
  }
  return Object.keys(fields).length === 0 ? {} : { fields };
}
