import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { KeysApi } from "../api/keys-api.js";
import type { UsageApi } from "../api/usage-api.js";
import type { VerifyOptions, VerifyResult } from "../auth/principal.js";
import type { ScopeRequirement } from "../scopes/scope-requirement.js";
import type { CreateKeyBody } from "../validation/create-key-body.js";

/** A Keyward instance, as `createKeyward` returns it (with the listed features' APIs beside). */
export interface Keyward {
  /** Key management: the same outcomes as the HTTP endpoints, as async functions. */
  readonly keys: KeysApi;
  /** Usage history maintenance: `prune()` with `usage.retainDays` configured. */
  readonly usage: UsageApi;
  /**
   * The hot path: a raw `Authorization` header value in, a decision out. Never throws.
   * @example
   * const result = await keyward.verify(req.headers.authorization, {
   *   scopes: ["profile:write"],
   *   route: "PUT /profiles/:slug",
   *   clientIp: req.ip, // the address your framework resolves: limits forged-key floods
   * });
   * if (!result.ok) return result.error.toResponse(result.headers);
   */
  verify(authorization: string | null | undefined, options?: VerifyOptions): Promise<VerifyResult>;
  /**
   * `verify` from a Fetch `Request`; a `route` without a method takes the request's. A `Request`
   * carries no client address: pass `clientIp` from your server (see docs/forged-key-floods.md).
   */
  authenticate(request: Request, options?: VerifyOptions): Promise<VerifyResult>;
  /**
   * Throws a `TypeError` naming every scope in `scopes` that is not configured, or what is wrong
   * with a malformed requirement (`{ anyOf: [] }`, `{ oneOf: [...] }`). Guards call it
   * when they are created, so a mistyped scope fails at start instead of refusing every key.
   * @example
   * keyward.assertScopes(["profile:read"]); // fine
   * keyward.assertScopes(["profile:raed"]); // TypeError: … not a configured scope …
   */
  assertScopes(scopes: ScopeRequirement): void;
  /**
   * Throws a `TypeError` unless `environment` is a configured environment (`live` without
   * `environments`). Guards given an `environment` call it when they are created.
   */
  assertEnvironment(environment: string): void;
  /** Whether a `session` hook is configured (adapters then pass requests without a bearer token). */
  readonly hasSession: boolean;
  /** The key-management endpoints (the six and the features'): a Fetch `Request` in, a `Response` out. */
  handle(request: Request): Promise<Response>;
  /**
   * Whether `handle` answers this path: the base path itself or anything below it. Adapters that
   * share a router with the host call it to pass every other request on.
   */
  serves(pathname: string): boolean;
  /** The base path `handle` serves, without a trailing slash. */
  readonly basePath: string;
  /**
   * The create-key body schema, usable by any Standard Schema consumer. Typed as a Standard Schema
   * only, so the published types never depend on the validation library behind it.
   */
  readonly schemas: { createKey: StandardSchemaV1<unknown, CreateKeyBody> };
  /** Flushes buffered usage and releases the store's connections, timers and subscriptions. */
  close(): Promise<void>;
}
