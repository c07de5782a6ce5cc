/**
 * The body of `POST {basePath}/tokens`, checked field by field into the issues a 422 lists (the
 * FastAPI shape every Keyward endpoint answers): `{ audience, scopes?, resources?, ttl? }`. Only the
 * shape and the instance's configuration are checked here; what the key may hand on (its scopes,
 * its resources) is checked once the key is known.
 */
import type { ValidationIssue } from "../../errors/validation-issue.js";
import {
  maxResourceIdLength,
  maxResourceIds,
  maxResourceKinds,
  resourceKindPattern,
} from "../../keys/key-resources.js";
import type { ScopeRegistry } from "../../scopes/scope-registry.js";

export interface ExchangeRequest {
  audience: string;
  scopes?: readonly string[];
  resources?: Readonly<Record<string, readonly string[]>>;
  /** Seconds. */
  ttl?: number;
}

const fields = new Set(["audience", "scopes", "resources", "ttl"]);
// Printable ASCII and no space: a URI, or an identifier a service calls itself by.
const audiencePattern = /^[\x21-\x7E]{1,512}$/;

/** The request, or the issues that make it unacceptable (each naming its field). */
export function readExchangeBody(
  body: unknown,
  scopes: ScopeRegistry,
  maxTtlSeconds: number,
): ExchangeRequest | ValidationIssue[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return [
      {
        loc: ["body"],
        msg: "The body must be a JSON object: { audience, scopes?, resources?, ttl? }",
        type: "dict_type",
      },
    ];
  }
  const issues: ValidationIssue[] = [];
  const record = body as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (!fields.has(name)) {
      issues.push({
        loc: ["body", name],
        msg: "Extra inputs are not permitted",
        type: "extra_forbidden",
      });
    }
  }
  const { audience, scopes: wanted, resources, ttl } = record;
  if (audience === undefined) {
    issues.push({
      loc: ["body", "audience"],
      msg: "Field required: the audience (the resource, e.g. https://api.example.com/mcp) the token is for",
      type: "missing",
    });
  } else if (typeof audience !== "string") {
    issues.push({
      loc: ["body", "audience"],
      msg: "Input should be a valid string",
      type: "string_type",
    });
  } else if (!audiencePattern.test(audience)) {
    issues.push({
      loc: ["body", "audience"],
      msg: "The audience must be 1–512 printable characters without spaces",
      type: "string_pattern_mismatch",
    });
  }
  if (wanted !== undefined) {
    if (!Array.isArray(wanted)) {
      issues.push({
        loc: ["body", "scopes"],
        msg: "Input should be a valid list",
        type: "list_type",
      });
    } else {
      wanted.forEach((scope: unknown, index) => {
        if (typeof scope !== "string") {
          issues.push({
            loc: ["body", "scopes", index],
            msg: "Input should be a valid string",
            type: "string_type",
          });
        } else if (!scopes.has(scope)) {
          issues.push({
            loc: ["body", "scopes", index],
            msg: `Unknown scope ${JSON.stringify(scope.slice(0, 64))}; configured: ${scopes.names.join(", ")}`,
            type: "enum",
          });
        }
      });
    }
  }
  if (resources !== undefined) issues.push(...resourceIssues(resources));
  if (ttl !== undefined) {
    if (typeof ttl !== "number" || !Number.isInteger(ttl)) {
      issues.push({
        loc: ["body", "ttl"],
        msg: "Input should be a whole number of seconds",
        type: "int_type",
      });
    } else if (ttl < 1 || ttl > maxTtlSeconds) {
      issues.push({
        loc: ["body", "ttl"],
        msg: `The ttl must be between 1 and ${maxTtlSeconds} seconds`,
        type: ttl < 1 ? "greater_than_equal" : "less_than_equal",
      });
    }
  }
  if (issues.length > 0) return issues;
  return {
    audience: audience as string,
    ...(wanted === undefined ? {} : { scopes: [...new Set(wanted as string[])] }),
    ...(resources === undefined ? {} : { resources: resources as Record<string, string[]> }),
    ...(ttl === undefined ? {} : { ttl: ttl as number }),
  };
}

function resourceIssues(resources: unknown): ValidationIssue[] {
  const at = ["body", "resources"];
  if (typeof resources !== "object" || resources === null || Array.isArray(resources)) {
    return [
      {
        loc: at,
        msg: 'Input should be an object of ids by kind: { "profile": ["alice"] }',
        type: "dict_type",
      },
    ];
  }
  const kinds = Object.entries(resources);
  if (kinds.length > maxResourceKinds) {
    return [{ loc: at, msg: `At most ${maxResourceKinds} kinds of resource`, type: "too_long" }];
  }
  const issues: ValidationIssue[] = [];
  for (const [kind, ids] of kinds) {
    if (!resourceKindPattern.test(kind)) {
      issues.push({
        loc: [...at, kind],
        msg: "A resource kind is a letter then up to 63 letters, digits, '_', '.', ':' or '-'",
        type: "string_pattern_mismatch",
      });
    } else if (!Array.isArray(ids) || ids.length === 0 || ids.length > maxResourceIds) {
      issues.push({
        loc: [...at, kind],
        msg: `Input should be a list of 1–${maxResourceIds} ids`,
        type: "list_type",
      });
    } else if (
      !ids.every(
        (id) => typeof id === "string" && id.length > 0 && id.length <= maxResourceIdLength,
      )
    ) {
      issues.push({
        loc: [...at, kind],
        msg: `Each id should be a string of 1–${maxResourceIdLength} characters`,
        type: "string_type",
      });
    }
  }
  return issues;
}
