/**
 * One key to import, as `keyward.imports.importKeys` takes it, and its schema (arktype, like every
 * other input), built for one instance's scopes, tiers and the peppers `imports()` was given.
 */
import type { ValidationIssue } from "../../errors/validation-issue.js";
import { limitNumberProblem } from "../../limits/limit-number.js";
import type { CalendarPeriod } from "../../limits/types.js";
import type { ScopeRegistry } from "../../scopes/scope-registry.js";
import type { TierLadder } from "../../tiers/tier-ladder.js";
import { latestExpiresAt } from "../../validation/create-key-body.js";
import { parseIsoDateTime } from "../../validation/iso-date-time.js";
import { pydanticMeta, toValidationIssues } from "../../validation/issues.js";
import { checkKeyName } from "../../validation/key-name.js";
import { metadataProblem } from "../../validation/metadata.js";
import { ownerIdProblem } from "../../validation/owner-id.js";
import {
  anyString,
  checked,
  checkedString,
  isRefusal,
  objectSchema,
  type Schema,
  schemaNode,
} from "../../validation/schema.js";
import { digestToHex, type HashEncoding } from "./hash-encoding.js";

/** The hash another system stored for a key, when its plaintext is gone (the usual case). */
export interface ImportedHash {
  /** The digest as that system wrote it. */
  value: string;
  /** SHA-256 of the token's UTF-8 bytes; HMAC-SHA-256 when `pepper` is given. */
  algorithm: "sha256";
  encoding: HashEncoding;
  /** The name of the pepper (in `imports({ peppers })`) the system keyed its HMAC with. */
  pepper?: string;
}

export interface ImportRecord {
  /** The secret itself, when you have it (hashed here, never stored). Give `key` or `hash`. */
  key?: string;
  hash?: ImportedHash;
  /** Whose key it is: a user id, or `{ type: "user" | "organization", id }`. */
  owner: string | { type: "user" | "organization"; id: string };
  /** The user who made it; default the owner (an organization's key: required by nothing, kept if given). */
  createdBy?: string;
  /** Default "Imported key". */
  name?: string;
  /** Configured scopes, none twice; default none. */
  scopes?: string[];
  /** A configured tier. */
  tier: string;
  /**
   * The owner's account tier (a configured tier), as `keys.create` takes it: the key's tier may
   * not be above it, and it is recorded for the owner. Default: the tier recorded with the owner's
   * keys, or, for an owner with no key yet, the highest tier this import gives them.
   */
  accountTier?: string;
  /** ISO 8601, at most 9999-12-31T23:59:59Z; in the past imports an expired key (it lists, and never verifies). */
  expiresAt?: string | null;
  /** ISO 8601, not in the future; default the time of the import. */
  createdAt?: string;
  /**
   * ISO 8601, not in the future: when the other system last saw it used; its `lastUsedAt` until
   * Keyward counts one.
   */
  lastUsedAt?: string | null;
  metadata?: Record<string, unknown> | null;
  /** The token's own prefix (`ba_`), shown in the key's hint. */
  prefix?: string;
  /** Default true; false imports the key disabled. */
  enabled?: boolean;
  /** Credits left and their refill (better-auth's `remaining` and refill, Unkey's `credits`). */
  credits?: {
    remaining: number;
    refill?: { amount: number; period: CalendarPeriod };
  } | null;
}

/** An import record, checked: times in epoch ms, the owner as a pair, the hash in lowercase hex. */
export interface CheckedImportRecord {
  key: string | undefined;
  /** The digest in hex, and the pepper's name if it is an HMAC. */
  hash: { hex: string; pepper: string | undefined } | undefined;
  owner: { type: "user" | "organization"; id: string };
  createdBy: string;
  name: string;
  scopes: string[];
  tier: string;
  accountTier: string | undefined;
  expiresAt: number | null;
  createdAt: number | undefined;
  lastUsedAt: number | null;
  metadata: Record<string, unknown> | null;
  prefix: string;
  enabled: boolean;
  credits: ImportRecord["credits"];
}

const maxTokenLength = 512;
const prefixPattern = /^[\x21-\x7e]{0,64}$/;

/**
 * The checks of one record: each field, then the rules across fields. Every problem is reported,
 * as `{ loc, msg, type }` with `loc` from the record (`["hash", "encoding"]`).
 */
export function importRecordSchema(options: {
  scopes: ScopeRegistry;
  tiers: TierLadder;
  peppers: ReadonlySet<string>;
  /** The time now, ms: `createdAt` and `lastUsedAt` may not be later. */
  now: () => number;
}) {
  const { scopes, tiers, peppers, now } = options;
  const reject = (
    ctx: { reject(problem: object): false },
    type: string,
    msg: string,
    relativePath?: (string | number)[],
  ) =>
    ctx.reject({
      expected: msg,
      actual: "",
      meta: pydanticMeta(type, msg),
      ...(relativePath ? { relativePath } : {}),
    });

  /**
   * A time as create takes one: ISO 8601 with an offset, at most 9999-12-31T23:59:59Z (a later one
   * could only be shown in expanded-year form, `+010000-…`); `past`: not after now either.
   */
  const time = (nullable: boolean, past: boolean) =>
    checked<string | null>((value, ctx) => {
      if (value === null && nullable) return true;
      if (typeof value !== "string")
        return reject(ctx, "datetime_type", "Input should be a valid datetime");
      const parsed = parseIsoDateTime(value);
      if (!parsed.ok) {
        return parsed.reason === "timezone"
          ? reject(ctx, "timezone_aware", "Input should have timezone info")
          : reject(ctx, "datetime_parsing", "Input should be a valid datetime in ISO 8601 format");
      }
      if (parsed.epochMs > latestExpiresAt) {
        return reject(
          ctx,
          "less_than_equal",
          "Input should be less than or equal to 9999-12-31T23:59:59Z",
        );
      }
      return (
        !past ||
        parsed.epochMs <= now() ||
        reject(ctx, "datetime_past", "Input should be in the past (it cannot be in the future)")
      );
    });

  const createdBy = checked<string>((value, ctx) => {
    const problem = ownerIdProblem(value);
    return problem === null || reject(ctx, "value_error", `Value error, createdBy ${problem}`);
  });

  const owner = checked<ImportRecord["owner"]>((value, ctx) => {
    const id = typeof value === "string" ? value : (value as { id?: unknown } | null)?.id;
    if (typeof value === "object" && value !== null) {
      const type = (value as { type?: unknown }).type;
      if (type !== "user" && type !== "organization") {
        return reject(ctx, "literal_error", "Input should be 'user' or 'organization'", ["type"]);
      }
    } else if (typeof value !== "string") {
      return reject(ctx, "model_type", "Input should be a user id or { type, id }");
    }
    const problem = ownerIdProblem(id);
    return problem === null || reject(ctx, "value_error", `Value error, the owner id ${problem}`);
  });

  const scopeList = schemaNode<string[]>({ proto: Array, sequence: "string" }).narrow(
    (data, ctx) => {
      const list = data as string[];
      const seen = new Set<string>();
      let valid = true;
      list.forEach((scope, index) => {
        if (!scopes.has(scope)) {
          valid = reject(
            ctx,
            "literal_error",
            `Input should be a configured scope, not ${JSON.stringify(scope).slice(0, 80)}`,
            [index],
          );
        } else if (seen.has(scope)) {
          valid = reject(ctx, "value_error", `Value error, duplicate scope '${scope}'`, [index]);
        }
        seen.add(scope);
      });
      return valid;
    },
  );

  const tier = checkedString(
    (value, ctx) =>
      tiers.has(value) ||
      reject(
        ctx,
        "literal_error",
        `Input should be one of the configured tiers (${tiers.names.join(", ")})`,
      ),
  );

  const hash = objectSchema<ImportedHash>({
    required: {
      value: anyString,
      algorithm: schemaNode({ unit: "sha256" }),
      encoding: schemaNode([{ unit: "hex" }, { unit: "base64url" }, { unit: "base64" }]),
    },
    optional: { pepper: anyString },
  }).narrow((data, ctx) => {
    const value = data as ImportedHash;
    let valid = true;
    if (digestToHex(value.value, value.encoding) === null) {
      valid = reject(ctx, "value_error", `Value error, not a SHA-256 digest in ${value.encoding}`, [
        "value",
      ]);
    }
    if (value.pepper !== undefined && !peppers.has(value.pepper)) {
      valid = reject(
        ctx,
        "value_error",
        `Value error, the pepper ${JSON.stringify(value.pepper).slice(0, 80)} is not one of imports({ peppers })`,
        ["pepper"],
      );
    }
    return valid;
  });

  const name = checkedString((value, ctx) => {
    const checked = checkKeyName(value);
    return checked.ok || reject(ctx, checked.type, checked.msg);
  });

  const metadata = checked<Record<string, unknown> | null>((value, ctx) => {
    if (value === null) return true;
    const problem = metadataProblem(value);
    return problem === null || reject(ctx, problem.type, problem.msg);
  });

  // The bound every way in shares (limit-number.ts): a balance a store keeps exactly.
  const count = (least: number) =>
    checked<number>((value, ctx) => {
      const problem = limitNumberProblem(value, least);
      return problem === null || reject(ctx, "value_error", `Value error, the count ${problem}`);
    });
  const credits = objectSchema({
    required: { remaining: count(0) },
    optional: {
      refill: objectSchema({
        required: { amount: count(1), period: schemaNode([{ unit: "day" }, { unit: "month" }]) },
      }),
    },
  }).or({ unit: null });

  const key = checkedString((value, ctx) => {
    if (value.length === 0)
      return reject(ctx, "string_too_short", "String should have at least 1 character");
    if (value.length > maxTokenLength) {
      return reject(
        ctx,
        "string_too_long",
        `String should have at most ${maxTokenLength} characters`,
      );
    }
    return true;
  });

  const schema = objectSchema<ImportRecord>({
    required: { owner, tier },
    optional: {
      key,
      hash,
      createdBy,
      accountTier: tier,
      name,
      scopes: scopeList,
      expiresAt: time(true, false),
      createdAt: time(false, true),
      lastUsedAt: time(true, true),
      metadata,
      prefix: checkedString(
        (value, ctx) =>
          prefixPattern.test(value) ||
          reject(
            ctx,
            "value_error",
            "Value error, a prefix is at most 64 printable characters, no space",
          ),
      ),
      enabled: schemaNode<boolean>([{ unit: true }, { unit: false }]),
      credits,
    },
  }).narrow((data, ctx) => {
    const record = data as ImportRecord;
    if ((record.key === undefined) === (record.hash === undefined)) {
      return reject(
        ctx,
        "value_error",
        "Value error, give the key's plaintext (`key`) or its hash (`hash`), one of them",
      );
    }
    return true;
  }) as Schema<ImportRecord>;

  return schema;
}

export type ImportRecordSchema = ReturnType<typeof importRecordSchema>;

/** One record checked into its stored form, or its problems (`loc` within the record). */
export function checkImportRecord(
  schema: ImportRecordSchema,
  input: unknown,
): { ok: true; record: CheckedImportRecord } | { ok: false; issues: ValidationIssue[] } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return {
      ok: false,
      issues: [{ loc: [], msg: "Input should be an object", type: "model_type" }],
    };
  }
  const out = schema(input);
  if (isRefusal(out)) {
    return {
      ok: false,
      issues: toValidationIssues(out, "body").map((issue) => ({
        ...issue,
        loc: issue.loc.slice(1),
      })),
    };
  }
  const value = out as ImportRecord;
  const owner =
    typeof value.owner === "string" ? { type: "user" as const, id: value.owner } : value.owner;
  const epoch = (text: string | null | undefined) => {
    if (text === null || text === undefined) return null;
    const parsed = parseIsoDateTime(text);
    return parsed.ok ? parsed.epochMs : null;
  };
  return {
    ok: true,
    record: {
      key: value.key,
      hash: value.hash && {
        hex: digestToHex(value.hash.value, value.hash.encoding)!,
        pepper: value.hash.pepper,
      },
      owner: { type: owner.type, id: owner.id },
      createdBy: value.createdBy ?? owner.id,
      name: (value.name ?? "Imported key").trim(),
      scopes: value.scopes ?? [],
      tier: value.tier,
      accountTier: value.accountTier,
      expiresAt: epoch(value.expiresAt),
      createdAt: epoch(value.createdAt) ?? undefined,
      lastUsedAt: epoch(value.lastUsedAt),
      metadata: value.metadata ?? null,
      prefix: value.prefix ?? "",
      enabled: value.enabled ?? true,
      credits: value.credits ?? null,
    },
  };
}
