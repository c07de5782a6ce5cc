/**
 * The key-management endpoints over `fetch`, with the session token the host provides: the
 * contract's six, and those of the server's options when it has them (`PATCH` with `keyUpdates`,
 * the audit log with `events`, `?organizationId=` with `organizations`, pages with `?limit=`).
 * Errors become `KeysApiError`s carrying the API's own `detail` and `code`.
 */
import type {
  KeyEventPage,
  KeyPage,
  KeyRecord,
  KeyWithSecret,
  Revocation,
  ScopeDescription,
  UsageReport,
} from "./types.js";

/** A validation issue of a 422 (`{loc, msg, type}`). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** What a refusal says besides its status and detail. */
export interface RefusalDetails {
  /** The stable `code` of docs/errors.md (`rate_limited`, `invalid_token`…), when the body has one. */
  code?: string | undefined;
  /** From `Retry-After` (seconds, or an HTTP date turned into seconds from now). */
  retryAfterSeconds?: number | undefined;
}

/** A refused or failed call: `status` 0 when the server could not be reached at all. */
export class KeysApiError extends Error {
  readonly code: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly status: number,
    /** The API's `detail`: a sentence, or the list of validation issues of a 422. */
    readonly detail: string | ValidationIssue[],
    details: RefusalDetails = {},
  ) {
    super(typeof detail === "string" ? detail : detail.map(describeIssue).join("; "));
    this.name = "KeysApiError";
    this.code = details.code;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }

  /** The validation issues of a 422; none for any other refusal. */
  get issues(): ValidationIssue[] {
    return typeof this.detail === "string" ? [] : this.detail;
  }

  /** One line per problem, for people: `name: String should have at least 1 character`. */
  get messages(): string[] {
    return typeof this.detail === "string" ? [this.detail] : this.detail.map(describeIssue);
  }
}

function describeIssue(issue: ValidationIssue): string {
  // loc[0] is where (body, query, path); the rest names the field.
  const field = issue.loc.slice(1).join(".");
  return field ? `${field}: ${issue.msg}` : issue.msg;
}

/** Where the token comes from: read before every call, so a host may refresh it in between. */
export type TokenSource = () => string | undefined | Promise<string | undefined>;

export interface CreateKeyInput {
  name: string;
  scopes: string[];
  tier: string;
  expiresAt?: string;
  /** The organization the key is for (the server's `organizations`); omitted: the person's own. */
  organizationId?: string;
  /** The environment (the server's `environments`); omitted: the server's default. */
  environment?: string;
  /** Addresses and CIDR ranges the key may be used from; omitted: anywhere. */
  allowedIps?: string[];
}

/** What `PATCH {basePath}/{key_id}` changes (the server's `keyUpdates`); fields left out stay. */
export interface KeyChanges {
  name?: string;
  enabled?: boolean;
  /** A new allowlist, or null to let the key be used from anywhere. */
  allowedIps?: string[] | null;
}

export interface ListOptions {
  /** An organization's keys instead of the person's own. */
  organizationId?: string | undefined;
  /** Keys per page (1–1,000); the server then answers `{ data, nextCursor }`. */
  limit: number;
  cursor?: string | null | undefined;
}

/** What the server's OpenAPI document (`{basePath}/openapi.json`) tells a client about choices. */
export interface ServerChoices {
  /** Every tier, lowest first. */
  tiers?: string[];
  /** The environments a key may be created in, the default first; only when there are several. */
  environments?: string[];
  /** Whether keys can be changed (`PATCH`, the server's `keyUpdates`). */
  keyUpdates?: boolean;
  /** The longest grace a rotation may give, in seconds (the server's `gracefulRotation`). */
  maxGracePeriodSeconds?: number;
}

export class KeysClient {
  constructor(
    private readonly basePath: string,
    private readonly token: TokenSource,
  ) {}

  /** One page of the person's (or an organization's) keys, newest first. */
  list(options: ListOptions): Promise<KeyPage> {
    const query = new URLSearchParams();
    if (options.organizationId) query.set("organizationId", options.organizationId);
    query.set("limit", String(options.limit));
    if (options.cursor) query.set("cursor", options.cursor);
    return this.call("GET", `?${query}`);
  }

  update(id: string, changes: KeyChanges): Promise<KeyRecord> {
    return this.call("PATCH", `/${encodeURIComponent(id)}`, changes);
  }

  /** One page of a key's audit log, newest first (the server's `events`). */
  events(id: string, options: { limit: number; cursor?: string | null }): Promise<KeyEventPage> {
    const query = new URLSearchParams({ limit: String(options.limit) });
    if (options.cursor) query.set("cursor", options.cursor);
    return this.call("GET", `/${encodeURIComponent(id)}/events?${query}`);
  }

  /**
   * The tiers (in order) and environments the server's OpenAPI document lists, when it serves one
   * (`openapi: { serve: true }`); nothing when it serves none (404). The API itself has no listing
   * of either.
   */
  async choices(): Promise<ServerChoices> {
    try {
      return choicesOf(await this.call("GET", "/openapi.json"));
    } catch (error) {
      // No document served (or no such route): nothing to learn. Anything else may pass: rethrown.
      if (error instanceof KeysApiError && (error.status === 404 || error.status === 405)) {
        return {};
      }
      throw error;
    }
  }

  async scopes(): Promise<ScopeDescription[]> {
    return (await this.call<{ data: ScopeDescription[] }>("GET", "/scopes")).data;
  }

  create(input: CreateKeyInput): Promise<KeyWithSecret> {
    return this.call("POST", "", input);
  }

  /** `graceSeconds` > 0 keeps the old secret working that long (the server's `gracefulRotation`). */
  rotate(id: string, graceSeconds = 0): Promise<KeyWithSecret> {
    const path = `/${encodeURIComponent(id)}/rotate`;
    // No body without a grace: exactly the contract's request, for servers without the option.
    return graceSeconds > 0
      ? this.call("POST", path, { gracePeriodSeconds: graceSeconds })
      : this.call("POST", path);
  }

  revoke(id: string): Promise<Revocation> {
    return this.call("DELETE", `/${encodeURIComponent(id)}`);
  }

  usage(id: string): Promise<UsageReport> {
    return this.call("GET", `/${encodeURIComponent(id)}/usage`);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const token = await this.token();
    if (!token) {
      throw new KeysApiError(401, "Not signed in: the page gave no session token", {
        code: "missing_credentials",
      });
    }
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(`${this.basePath.replace(/\/+$/, "")}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new KeysApiError(0, "Could not reach the server. Check your connection and try again.");
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      throw new KeysApiError(response.status, detailOf(response, parsed), {
        code: codeOf(parsed),
        retryAfterSeconds: retryAfterSeconds(response.headers.get("retry-after"), Date.now()),
      });
    }
    return parsed as T;
  }
}

/** The tiers and environments of an OpenAPI document as `@keyward/core` writes it. */
export function choicesOf(document: unknown): ServerChoices {
  const schemas = (document as { components?: { schemas?: Record<string, unknown> } } | undefined)
    ?.components?.schemas;
  const tiers = stringList((schemas?.Tier as { enum?: unknown } | undefined)?.enum);
  const body = schemas?.CreateKeyBody as
    | { properties?: { environment?: { enum?: unknown } } }
    | undefined;
  const environments = stringList(body?.properties?.environment?.enum);
  const rotate = schemas?.RotateKeyBody as
    | { properties?: { gracePeriodSeconds?: { maximum?: unknown } } }
    | undefined;
  const maxGrace = rotate?.properties?.gracePeriodSeconds?.maximum;
  return {
    ...(typeof maxGrace === "number" && maxGrace > 0 ? { maxGracePeriodSeconds: maxGrace } : {}),
    ...(tiers.length > 0 ? { tiers } : {}),
    ...(environments.length > 1 ? { environments } : {}),
    ...(schemas ? { keyUpdates: "UpdateKeyBody" in schemas } : {}),
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string")
    : [];
}

function codeOf(body: unknown): string | undefined {
  const code = (body as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * `Retry-After` as seconds from `now`: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined
 * when absent or unreadable. A cross-origin `base-path` sees it only if the server's CORS exposes it.
 */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // An HTTP date opens with the day's name ("Fri, 27 Nov 2026 …", or asctime's "Fri Nov 27 …"):
  // Date.parse would also take "-5" or "2026" as dates.
  if (!/^[A-Za-z]{3},? /.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function detailOf(response: Response, body: unknown): string | ValidationIssue[] {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) return detail as ValidationIssue[];
  return `The server answered ${response.status} ${response.statusText}`.trim();
}
