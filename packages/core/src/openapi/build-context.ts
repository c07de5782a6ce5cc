import type { Type } from "arktype";
import type { ScopeRegistry } from "../scopes/scope-registry.js";
import type { TierLadder } from "../tiers/tier-ladder.js";
import type { OpenApiOptions } from "./options.js";

/** What the document is built from: one Keyward instance's resolved configuration. */
export interface OpenApiBuildContext {
  /** Normalised: starts with "/", no trailing slash. */
  basePath: string;
  scopes: ScopeRegistry;
  tiers: TierLadder;
  /** Every prefix a key may have, the default first (several with `environments`). */
  keyPrefixes: readonly string[];
  /** The environments' names, default first: `["live"]` without `environments`. */
  environments: readonly string[];
  /** Whether `environments` is configured: `environment` on create and on records. */
  environmentsConfigured: boolean;
  /** The arktype schema `POST {basePath}` validates with. */
  createKeyBody: Type;
  /** The arktype schema `PATCH {basePath}/{key_id}` validates with. */
  updateKeyBody: Type;
  /** Whether `PATCH {basePath}/{key_id}` is served (`keyUpdates`). */
  keyUpdates: boolean;
  /** The rotate body's schema and its maximum when `gracefulRotation` is on; undefined when off. */
  rotateKeyBody: { schema: Type; maxGracePeriodSeconds: number } | undefined;
  /** Whether `GET {basePath}/{key_id}/events` is served (`events`). */
  events: boolean;
  /** Whether `organizations` is configured: `organizationId` on create and list, its 403 codes. */
  organizations: boolean;
  /** Whether a per-owner key limit applies (`maxKeysPerOwner` not false): create's `too_many_keys`. */
  maxKeysPerOwner: boolean;
  /** Whether the IETF `RateLimit` / `RateLimit-Policy` fields are sent too. */
  ietfRateLimitHeaders: boolean;
  options: OpenApiOptions;
}
