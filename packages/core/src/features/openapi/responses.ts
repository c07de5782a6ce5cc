/**
 * Response objects shared by every operation: success answers with their rate-limit headers, and
 * one named error response per status, from the error table. Operations list exactly the statuses
 * they can answer, by reference.
 */

import type { InstanceDescription } from "../../feature-interface/openapi-contribution.js";
import type {
  HeaderObject,
  ReferenceObject,
  ResponseObject,
} from "../../feature-interface/openapi-types.js";
import { componentRef } from "./schemas/component-ref.js";
import {
  codeIsConfigured,
  codesForStatus,
  errorBodyType,
  validationErrorBodyType,
} from "./schemas/error-body.js";

const headerRef = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });
const integerHeader = (description: string): HeaderObject => ({
  description,
  schema: { type: "integer", minimum: 0 },
});

/** The header fields Keyward's answers carry, as `components.headers`. */
export function headerComponents(context: InstanceDescription): Record<string, HeaderObject> {
  const headers: Record<string, HeaderObject> = {
    "X-RateLimit-Limit": integerHeader("Requests allowed per window at the caller's tier"),
    "X-RateLimit-Remaining": integerHeader("Requests left in the current window"),
    "X-RateLimit-Reset": integerHeader(
      "Unix epoch second at which the allowance is back (on a 429: when a retry is admitted)",
    ),
    "Retry-After": {
      ...integerHeader("Seconds to wait before retrying"),
      schema: { type: "integer", minimum: 1 },
    },
    "WWW-Authenticate": {
      description: "The RFC 6750 Bearer challenge",
      schema: { type: "string", pattern: "^Bearer( |$)" },
    },
    Allow: { description: "The methods this path takes", schema: { type: "string" } },
    "Cache-Control": { description: "Secrets are never cached", schema: { const: "no-store" } },
    ETag: {
      description:
        "The key record's version, as a strong entity tag: send it back in `If-Match` to change the key only if nothing changed it since",
      schema: { type: "string", pattern: '^"[^"]+"$' },
    },
  };
  if (context.ietfRateLimitHeaders) {
    headers["RateLimit-Policy"] = {
      description: "draft-ietf-httpapi-ratelimit-headers: the policy, its quota and window",
      schema: { type: "string" },
    };
    headers.RateLimit = {
      description: "draft-ietf-httpapi-ratelimit-headers: the quota left and its window",
      schema: { type: "string" },
    };
  }
  return headers;
}

/** A header field every such response carries (a component with `required` set). */
export function requiredHeader(context: InstanceDescription, name: string): HeaderObject {
  const component = headerComponents(context)[name];
  if (!component) throw new Error(`unreachable: no header component ${name}`);
  return { ...component, required: true };
}

function rateLimitNames(context: InstanceDescription): string[] {
  const names = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];
  if (context.ietfRateLimitHeaders) names.push("RateLimit-Policy", "RateLimit");
  return names;
}

/**
 * The rate-limit headers of a response. On an answer that got past the rate limit they are always
 * there (`required`); on an error they are there only when the request got that far.
 */
function rateLimitHeaders(
  context: InstanceDescription,
  required: boolean,
): Record<string, HeaderObject | ReferenceObject> {
  const headers: Record<string, HeaderObject | ReferenceObject> = {};
  for (const name of rateLimitNames(context)) {
    headers[name] = required ? requiredHeader(context, name) : headerRef(name);
  }
  return headers;
}

/** A JSON success answer from a rate-limited endpoint. */
export function successResponse(
  context: InstanceDescription,
  description: string,
  schemaName: string | undefined,
  options: { noStore?: boolean; entityTag?: boolean } = {},
): ResponseObject {
  const headers = rateLimitHeaders(context, true);
  if (options.noStore) {
    headers["Cache-Control"] = requiredHeader(context, "Cache-Control");
  }
  if (options.entityTag) {
    headers.ETag = requiredHeader(context, "ETag");
  }
  return {
    description,
    headers,
    content: {
      "application/json": { schema: schemaName ? componentRef(schemaName) : {} },
    },
  };
}

/** Error statuses by the name of their `components.responses` entry. */
export const errorResponseNames = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  408: "RequestTimeout",
  409: "Conflict",
  410: "Gone",
  412: "PreconditionFailed",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  422: "ValidationFailed",
  429: "TooManyRequests",
  431: "HeadersTooLarge",
  500: "InternalError",
} as const;

export type ErrorStatus = keyof typeof errorResponseNames;

const errorDescriptions: Record<ErrorStatus, string> = {
  400: "Malformed JSON, or a request the server could not parse",
  401: "No bearer token, or one that fails verification",
  403: "Authenticated, but not permitted: an API key where a session is needed, another owner's key, a tier above the account's, a key used from an address its allowlist does not hold, and (as configured) an organization the caller is not a member of, a role that may not, or the per-owner key limit",
  404: "No such key, or no such route",
  405: "The path exists, not with this method",
  408: "The request did not arrive in time",
  409: "A conflicting change won a race; nothing was changed",
  410: "The key is revoked (or, for rotation, expired)",
  412: "`If-Match` names no current version of the key: it changed since; nothing was changed",
  413: "Body larger than the configured limit",
  415: "A content type the route cannot read",
  422: "Field problems, every one at once, in the Pydantic shape",
  429: "A rate limit was hit",
  431: "Request headers too large",
  500: "A server-side failure; the body reveals nothing of it",
};

/** Every error status as `components.responses`, each with exactly the codes it can carry. */
export function errorResponseComponents(
  context: InstanceDescription,
): Record<string, ResponseObject> {
  const responses: Record<string, ResponseObject> = {};
  for (const [statusText, name] of Object.entries(errorResponseNames)) {
    const status = Number(statusText) as ErrorStatus;
    const body =
      status === 422
        ? validationErrorBodyType.toJsonSchema({ dialect: null })
        : errorBodyType(
            codesForStatus(status).filter((code) => codeIsConfigured(code, context)),
          ).toJsonSchema({ dialect: null });
    const headers = rateLimitHeaders(context, false);
    if (status === 401) {
      headers["WWW-Authenticate"] = requiredHeader(context, "WWW-Authenticate");
    }
    if (status === 405) {
      headers.Allow = requiredHeader(context, "Allow");
    }
    if (status === 429) {
      // Not `required`: credits without a refill come back only when the operator grants more,
      // so that refusal has no time to promise (Retry-After is sent only when a next period or a
      // refill will admit the request).
      headers["Retry-After"] = {
        schema: { type: "integer", minimum: 1 },
        description:
          "Seconds to wait before retrying. Every 429 carries it except `credits_exhausted` for credits without a refill, which come back only when the operator grants more",
      };
    }
    responses[name] = {
      description: errorDescriptions[status],
      headers,
      content: { "application/json": { schema: body as Record<string, unknown> } },
    };
  }
  return responses;
}

/** `responses` entries for `statuses`, by reference. */
export function errorResponses(...statuses: ErrorStatus[]): Record<string, ReferenceObject> {
  const entries: Record<string, ReferenceObject> = {};
  for (const status of statuses) {
    entries[String(status)] = { $ref: `#/components/responses/${errorResponseNames[status]}` };
  }
  return entries;
}

/** What every authenticated, rate-limited operation can answer besides its own outcomes. */
export const guardedErrors: ErrorStatus[] = [401, 403, 429, 500];
