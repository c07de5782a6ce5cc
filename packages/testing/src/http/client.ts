/**
 * Request builders and a JWT minter for the HTTP conformance suite. Every request goes through
 * `options.fetch`, and every response body is read in full at once, so that an adapter served over
 * real HTTP never keeps a connection waiting on an unread body.
 */
import type { KeyRecord, KeyWithSecret, RevokedKey, UsageReport } from "@keyward/core";
import { base64url, SignJWT } from "jose";
import { expect } from "vitest";
import { DEFAULT_BASE_PATH, PROFILE_ROUTE, SUITE_ORIGIN } from "./demo-contract.js";
import { openApiResponseCheck } from "./openapi-check.js";
import type { HttpSuiteOptions } from "./options.js";
import { resolveSuiteContract } from "./suite-contract.js";

/** A response with its body already read: `body` is the parsed JSON, or undefined if it is not JSON. */
export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** The `{"detail": ...}` body of every error response. */
export interface ErrorBody {
  detail: unknown;
  code?: string;
}

/** A user of the implementation under test, known only by the JWT the suite minted for them. */
export interface TestUser {
  id: string;
  /** A valid HS256 JWT for this user. */
  token: string;
  /** The `tier` claim, or undefined when the token has none. */
  tier: string | undefined;
}

export interface SendInit {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** A raw `Authorization` value; overrides `token`. */
  authorization?: string;
  /** Serialised as the JSON body. */
  json?: unknown;
  /** A raw body, sent with `Content-Type: application/json`. */
  body?: string;
  /** More request headers (`If-Match`, say). */
  headers?: Record<string, string>;
}

export interface CreateKeyBody {
  name?: unknown;
  scopes?: unknown;
  tier?: unknown;
  expiresAt?: unknown;
  [field: string]: unknown;
}

export type SuiteClient = ReturnType<typeof createSuiteClient>;

/**
 * @param clock the implementation's clock when it is not the system's (a policy suite's instance on
 *   a clock the suite moves): the JWTs the client mints are issued at its `now`, so that they are
 *   valid there.
 */
export function createSuiteClient(options: HttpSuiteOptions, clock?: { now(): number }) {
  const contract = resolveSuiteContract(options);
  const basePath = (options.basePath ?? DEFAULT_BASE_PATH).replace(/\/+$/, "");
  const keyPath = (id: string) => `${basePath}/${encodeURIComponent(id)}`;
  const checkAgainstDocument = options.openapi ? openApiResponseCheck(options.openapi) : undefined;

  async function send<T = unknown>(
    method: string,
    path: string,
    init: SendInit = {},
  ): Promise<Reply<T>> {
    const headers = new Headers({ accept: "application/json" });
    const authorization =
      init.authorization ?? (init.token === undefined ? undefined : `Bearer ${init.token}`);
    if (authorization !== undefined) headers.set("authorization", authorization);
    const body = init.json === undefined ? init.body : JSON.stringify(init.json);
    if (body !== undefined) headers.set("content-type", "application/json");
    for (const [name, value] of Object.entries(init.headers ?? {})) headers.set(name, value);
    const response = await options.fetch(
      new Request(new URL(path, SUITE_ORIGIN), {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
      }),
    );
    const reply = await readReply<T>(response);
    if (checkAgainstDocument) {
      // Joined, so a failure prints each problem in full rather than "Array(1)".
      const problems = checkAgainstDocument(method, path, reply).join("\n");
      expect(problems, `${method} ${path}: the answer does not match the OpenAPI document`).toBe(
        "",
      );
    }
    return reply;
  }

  /**
   * A user at `tier` (default: the lowest tier), or without a `tier` claim when null; `claims`
   * adds claims (`orgs` for organization memberships).
   */
  async function newUser(
    tier: string | null = contract.lowestTier.name,
    claims: Record<string, unknown> = {},
  ): Promise<TestUser> {
    return userWithId(newUserId(), tier, claims);
  }

  /** A token for a known user id: the same user signing in again, with other claims. */
  async function userWithId(
    id: string,
    tier: string | null,
    claims: Record<string, unknown> = {},
  ): Promise<TestUser> {
    const all = tier === null ? { ...claims, sub: id } : { ...claims, sub: id, tier };
    const times = clock ? { issuedAt: Math.floor(clock.now() / 1000) } : {};
    return { id, token: await mintJwt(options.jwtSecret, all, times), tier: tier ?? undefined };
  }

  const createKey = (token: string, body: CreateKeyBody) =>
    send<KeyWithSecret>("POST", basePath, { token, json: body });

  /** Creates a key that must be accepted, and returns it with its secret. */
  async function createKeyFor(
    user: TestUser,
    fields: { name?: string; scopes?: readonly string[]; tier?: string; expiresAt?: string } = {},
  ): Promise<KeyWithSecret> {
    const reply = await createKey(user.token, {
      name: "conformance key",
      scopes: [contract.readScope, contract.writeScope],
      tier: contract.lowestTier.name,
      ...fields,
    });
    expect(reply.status, `creating a key failed: ${reply.status} ${reply.text}`).toBe(201);
    return reply.body;
  }

  return {
    basePath,
    contract,
    send,
    newUser,
    userWithId,
    createKey,
    createKeyFor,
    listKeys: (token: string) => send<{ data: KeyRecord[] }>("GET", basePath, { token }),
    listScopes: (token: string) =>
      send<{ data: { name: string; description: string }[] }>("GET", `${basePath}/scopes`, {
        token,
      }),
    /**
     * Rotates with no body, as v0.1 does; `json` sends one (`gracePeriodSeconds`), `headers`
     * `If-Match`, say.
     */
    rotateKey: (token: string, id: string, json?: unknown, headers?: Record<string, string>) =>
      send<KeyWithSecret>("POST", `${keyPath(id)}/rotate`, {
        token,
        ...(json === undefined ? {} : { json }),
        ...(headers ? { headers } : {}),
      }),
    keyUsage: (token: string, id: string) =>
      send<UsageReport>("GET", `${keyPath(id)}/usage`, { token }),
    revokeKey: (token: string, id: string) => send<RevokedKey>("DELETE", keyPath(id), { token }),
    /** `headers`: `If-Match`, say. */
    updateKey: (token: string, id: string, json: unknown, headers?: Record<string, string>) =>
      send<KeyRecord>("PATCH", keyPath(id), { token, json, ...(headers ? { headers } : {}) }),
    /** A create-key body the implementation accepts from a lowest-tier user. */
    validCreateBody: (): CreateKeyBody => ({
      name: "conformance key",
      scopes: [contract.readScope],
      tier: contract.lowestTier.name,
    }),
    getProfile: (token: string, slug: string) =>
      send<{ slug: string; viewer: string }>("GET", contract.routePath(slug), { token }),
    putProfile: (token: string, slug: string) =>
      send<{ slug: string; updatedBy: string }>("PUT", contract.routePath(slug), {
        token,
        json: { displayName: `Profile ${slug}` },
      }),
  };
}

/** A response read in full: status, headers, text, and the body parsed as JSON when it is JSON. */
export async function readReply<T = unknown>(response: Response): Promise<Reply<T>> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: parseJson(text) as T };
}

/** A concrete path of the demo's profile route (for suites that serve the demo host themselves). */
export function profilePath(slug: string): string {
  return PROFILE_ROUTE.replace(":slug", encodeURIComponent(slug));
}

/** A user id no other test, and no earlier run against the same store, has used. */
export function newUserId(): string {
  return `user_${crypto.randomUUID()}`;
}

/** A slug for host-route calls; distinct per call so nothing depends on shared host state. */
export function newSlug(label = "profile"): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}`;
}

export interface JwtTimes {
  /** `iat`, epoch seconds; default now. */
  issuedAt?: number;
  /** `exp`, epoch seconds; default 10 minutes after `issuedAt`. */
  expiresAt?: number;
}

/** An HS256 JWT signed with `secret`, as a login endpoint of the demo would issue. */
export async function mintJwt(
  secret: string,
  claims: Record<string, unknown>,
  times: JwtTimes = {},
): Promise<string> {
  const issuedAt = times.issuedAt ?? Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt(issuedAt)
    .setExpirationTime(times.expiresAt ?? issuedAt + 600)
    .sign(new TextEncoder().encode(secret));
}

/** An unsecured JWT (`alg: none`, empty signature), built by hand since no library will sign one. */
export function unsecuredJwt(claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: unknown) => base64url.encode(JSON.stringify(value));
  return `${part({ alg: "none", typ: "JWT" })}.${part({ iat: now, exp: now + 600, ...claims })}.`;
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
