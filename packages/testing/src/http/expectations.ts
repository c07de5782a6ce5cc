/**
 * Assertions shared by the HTTP suites. Each names the reply in its failure message, so a failing
 * conformance check shows what the implementation actually answered.
 */
import type { KeyRecord, ValidationIssue } from "@keyward/core";
import { expect } from "vitest";
import type { ErrorBody, Reply } from "./client.js";
import { DEMO_WINDOW_SECONDS, KEY_PATTERN, KEY_PREFIX } from "./demo-contract.js";

export const KEY_RECORD_FIELDS = [
  "createdAt",
  "expiresAt",
  "hint",
  "id",
  "lastUsedAt",
  "name",
  "revokedAt",
  "scopes",
  "status",
  "tier",
];

/**
 * Pydantic v2 error types an implementation may plausibly report for the create-key body. The
 * contract's 422 items take their `type` from Pydantic's names (clients written against a Pydantic
 * API read them unchanged), so anything outside them is a made-up type.
 */
export const PYDANTIC_ERROR_TYPES = [
  "missing",
  "model_attributes_type",
  "dict_type",
  "bool_type",
  "string_type",
  "list_type",
  "string_too_short",
  "string_too_long",
  "too_short",
  "too_long",
  "literal_error",
  "enum",
  "value_error",
  "datetime_parsing",
  "datetime_type",
  "datetime_future",
  "timezone_aware",
  "less_than_equal",
  "greater_than_equal",
  "int_type",
  "int_from_float",
  "json_invalid",
  // A field the body may not carry (PATCH's `limits`, which only the operator sets).
  "extra_forbidden",
];

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export function describeReply(reply: Reply): string {
  const body = reply.text.length > 600 ? `${reply.text.slice(0, 600)}…` : reply.text;
  return `got ${reply.status} ${body}`;
}

export function expectStatus(reply: Reply, status: number): void {
  expect(reply.status, describeReply(reply)).toBe(status);
}

/** The status, a JSON content type and a body that parses as JSON. */
export function expectJson(reply: Reply, status: number): void {
  expectStatus(reply, status);
  expect(reply.headers.get("content-type"), "Content-Type").toMatch(/^application\/json\s*(;|$)/i);
  expect(reply.body, `body is not JSON: ${reply.text.slice(0, 200)}`).not.toBeUndefined();
}

/**
 * The contract's error body plus Keyward's machine-readable code: `detail` and `code`, nothing
 * else. A client reading only `detail` sees exactly the contract's shape.
 */
function expectErrorFields(reply: Reply): void {
  const body = reply.body as ErrorBody;
  expect(Object.keys(body).sort(), describeReply(reply)).toEqual(["code", "detail"]);
  expect(body.code, `code (${describeReply(reply)})`).toMatch(/^[a-z][a-z0-9_]*$/);
}

/** A simple error: `{"detail": "<non-empty string>", "code": "<code>"}`. */
export function expectErrorDetail(reply: Reply, status: number): string {
  expectJson(reply, status);
  const body = reply.body as ErrorBody;
  expectErrorFields(reply);
  expect(typeof body.detail, describeReply(reply)).toBe("string");
  expect((body.detail as string).length).toBeGreaterThan(0);
  return body.detail as string;
}

/**
 * How a 401 challenges the client (RFC 6750 §3): `"no-error"` when no bearer credential was sent
 * (a plain `Bearer` challenge, no error code), `"invalid_token"` when a token was refused, `"any"`
 * when only the scheme is checked (a malformed header may be answered either way).
 */
export type BearerChallenge = "no-error" | "invalid_token" | "any";

/** A `WWW-Authenticate: Bearer ...` challenge of the expected kind. */
export function expectBearerChallenge(reply: Reply, expected: BearerChallenge): void {
  const challenge = reply.headers.get("WWW-Authenticate");
  expect(challenge, `WWW-Authenticate header (${describeReply(reply)})`).toMatch(
    /^Bearer(\s|,|$)/i,
  );
  if (expected === "no-error") {
    expect(challenge, "a challenge without credentials carries no error").not.toMatch(/error=/);
  } else if (expected === "invalid_token") {
    expect(challenge, "WWW-Authenticate for a refused token").toMatch(/error="invalid_token"/);
  }
}

/** A 422 whose `detail` is a non-empty array of `{loc, msg, type}` issues; returns the issues. */
export function expectValidationIssues(reply: Reply): ValidationIssue[] {
  expectJson(reply, 422);
  const body = reply.body as ErrorBody;
  expectErrorFields(reply);
  expect(body.code, describeReply(reply)).toBe("validation_failed");
  expect(Array.isArray(body.detail), describeReply(reply)).toBe(true);
  const issues = body.detail as ValidationIssue[];
  expect(issues.length).toBeGreaterThan(0);
  for (const issue of issues) {
    expect(issue, describeReply(reply)).toEqual({
      loc: expect.any(Array),
      msg: expect.any(String),
      type: expect.any(String),
    });
    expect(["body", "query", "path"]).toContain(issue.loc[0]);
    for (const part of issue.loc) expect(["string", "number"]).toContain(typeof part);
    expect(issue.msg.length).toBeGreaterThan(0);
    expect(PYDANTIC_ERROR_TYPES, `unknown issue type ${issue.type}`).toContain(issue.type);
  }
  return issues;
}

/** The issue at exactly `loc`, which must exist. */
export function issueAt(issues: ValidationIssue[], loc: (string | number)[]): ValidationIssue {
  const issue = issues.find((candidate) => JSON.stringify(candidate.loc) === JSON.stringify(loc));
  expect(issue, `no issue at ${JSON.stringify(loc)} in ${JSON.stringify(issues)}`).toBeDefined();
  return issue!;
}

export function expectIsoTime(value: unknown, label = "time"): number {
  expect(value, label).toMatch(ISO_UTC);
  const epochMs = Date.parse(value as string);
  expect(Number.isNaN(epochMs), `${label} ${String(value)} is not a date`).toBe(false);
  return epochMs;
}

/** Exactly the key record's fields (plus `key` when `withSecret`), each of the right form. */
export function expectKeyRecord(record: unknown, withSecret: boolean): asserts record is KeyRecord {
  expect(record).toBeTypeOf("object");
  const fields = withSecret ? [...KEY_RECORD_FIELDS, "key"].sort() : KEY_RECORD_FIELDS;
  expect(Object.keys(record as object).sort()).toEqual(fields);
  const key = record as KeyRecord & { key?: string };
  expect(key.id).toBeTypeOf("string");
  expect(key.id.length).toBeGreaterThan(0);
  expect(key.name).toBeTypeOf("string");
  expect(Array.isArray(key.scopes)).toBe(true);
  expect(key.tier).toBeTypeOf("string");
  expect(["active", "expired", "revoked"]).toContain(key.status);
  expect(key.hint.startsWith(`${KEY_PREFIX}…`), `hint ${key.hint}`).toBe(true);
  expect(key.hint).toHaveLength(KEY_PREFIX.length + 1 + 4);
  expectIsoTime(key.createdAt, "createdAt");
  for (const field of ["expiresAt", "lastUsedAt", "revokedAt"] as const) {
    if (key[field] !== null) expectIsoTime(key[field], field);
  }
  if (withSecret) {
    expect(key.key).toMatch(KEY_PATTERN);
    expect(key.hint).toBe(`${KEY_PREFIX}…${key.key!.slice(-4)}`);
  }
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  reset: number;
}

/**
 * `X-RateLimit-Limit`, `-Remaining` and `-Reset` are present and well-formed: integers, the limit as
 * expected, and the reset as Unix epoch seconds in the future. A sliding window is only fully
 * available again two windows after its start, so the reset may lie up to two windows ahead.
 */
export function expectRateLimitHeaders(reply: Reply, limit: number): RateLimitState {
  const read = (name: string) => {
    const value = reply.headers.get(name);
    expect(value, `${name} header (${describeReply(reply)})`).toMatch(/^\d+$/);
    return Number(value);
  };
  const state = {
    limit: read("X-RateLimit-Limit"),
    remaining: read("X-RateLimit-Remaining"),
    reset: read("X-RateLimit-Reset"),
  };
  expect(state.limit, "X-RateLimit-Limit").toBe(limit);
  expect(state.remaining, "X-RateLimit-Remaining").toBeLessThanOrEqual(limit);
  const nowSeconds = Date.now() / 1000;
  expect(state.reset, "X-RateLimit-Reset is epoch seconds in the future").toBeGreaterThanOrEqual(
    Math.floor(nowSeconds),
  );
  expect(state.reset, "X-RateLimit-Reset is within two windows").toBeLessThanOrEqual(
    Math.ceil(nowSeconds) + 2 * DEMO_WINDOW_SECONDS + 1,
  );
  return state;
}

/** A 429 with `{"detail": "..."}`, `Retry-After` in whole seconds, and the rate-limit headers. */
export function expectRateLimited(reply: Reply, limit: number): void {
  expectErrorDetail(reply, 429);
  const state = expectRateLimitHeaders(reply, limit);
  expect(state.remaining, "X-RateLimit-Remaining on a 429").toBe(0);
  const retryAfter = reply.headers.get("Retry-After");
  expect(retryAfter, "Retry-After header").toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  // On a 429 the reset is the moment a retry is admitted, which Retry-After counts down to: a
  // client sleeping until either is admitted, and neither sends it away for longer than needed.
  const retryAt = Math.floor(Date.now() / 1000) + Number(retryAfter);
  expect(state.reset, "X-RateLimit-Reset on a 429 is when Retry-After ends").toBeGreaterThanOrEqual(
    retryAt - 2,
  );
  expect(state.reset, "X-RateLimit-Reset on a 429 is when Retry-After ends").toBeLessThanOrEqual(
    retryAt + 1,
  );
}

/** The methods an `Allow` header lists, upper-cased. */
export function allowedMethods(reply: Reply): string[] {
  const allow = reply.headers.get("Allow");
  expect(allow, `Allow header (${describeReply(reply)})`).toBeTruthy();
  return allow!.split(",").map((method) => method.trim().toUpperCase());
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Retries `check` until it passes or `timeoutMs` runs out, for state an implementation may write
 * asynchronously (buffered usage counters).
 */
export async function eventually(check: () => Promise<void>, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await sleep(100);
    }
  }
}
