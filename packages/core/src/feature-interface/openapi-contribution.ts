/**
 * How a feature describes its endpoints for the OpenAPI document: the instance as the document
 * sees it, and one builder per operation. The kernel defines these so that a feature can contribute
 * paths without depending on the `openapi()` feature that assembles them.
 */

import type { EventTypes } from "../event-model/event-types.js";
import type { KeyField } from "../keys/key-field.js";
import type { ScopeRegistry } from "../scopes/scope-registry.js";
import type { TierLadder } from "../tiers/tier-ladder.js";
import type { Schema } from "../validation/schema.js";
import type { HttpMethod, OperationObject } from "./openapi-types.js";
import type { UsageSection } from "./usage-section.js";

/** One Keyward instance as its OpenAPI document describes it, resolved from its configuration. */
export interface InstanceDescription {
  /** Normalised: starts with "/", no trailing slash. */
  basePath: string;
  scopes: ScopeRegistry;
  tiers: TierLadder;
  /** Every prefix a key may have, the default first (several with environments). */
  keyPrefixes: readonly string[];
  /** The environments' names, default first: `["live"]` with a single environment. */
  environments: readonly string[];
  /** Whether several environments are configured: `environment` on create and on records. */
  environmentsConfigured: boolean;
  /** The arktype schema `POST {basePath}` validates with. */
  createKeyBody: Schema<unknown>;
  /** The arktype schema `PATCH {basePath}/{key_id}` validates with. */
  updateKeyBody: Schema<unknown>;
  /** The listed features' key fields: each describes its body properties, record and events. */
  keyFields: readonly KeyField[];
  /** The sections listed features add to the usage report (`usage-section.ts`), in their order. */
  usageSections: readonly Pick<UsageSection, "name" | "schema">[];
  /** Whether `PATCH {basePath}/{key_id}` is served. */
  keyUpdates: boolean;
  /** The rotate body's schema and its maximum when rotations may give a grace; else undefined. */
  rotateKeyBody: { schema: Schema<unknown>; maxGracePeriodSeconds: number } | undefined;
  /** Whether `GET {basePath}/{key_id}/events` is served. */
  events: boolean;
  /** The event types: the kernel's and those the listed features declare (`eventTypes`). */
  eventTypes: EventTypes;
  /** Whether organizations own keys: `organizationId` on create and list, their 403 codes. */
  organizations: boolean;
  /** Whether a per-owner key limit applies: create's `too_many_keys`. */
  maxKeysPerOwner: boolean;
  /** Whether the IETF `RateLimit` / `RateLimit-Policy` fields are sent too. */
  ietfRateLimitHeaders: boolean;
}

/**
 * One operation's part of the document. Endpoints under the base path give `path` relative to it
 * (`""`, `"/{key_id}/rotate"`); `enabled` says when the instance serves it (default always).
 */
export interface PathBuilder {
  path: string;
  method: HttpMethod;
  enabled?(instance: InstanceDescription): boolean;
  build(instance: InstanceDescription): OperationObject;
}
