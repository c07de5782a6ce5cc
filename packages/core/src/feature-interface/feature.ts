/**
 * A feature module: what a feature adds to the kernel, through one typed interface. The kernel
 * (keys, verify, tiers and limits, usage, sessions, the six endpoints) knows no feature; a host lists
 * the ones it wants in `createKeyward({ features: [...] })`, and each is installed once, after the
 * kernel is built:
 *
 * ```ts
 * import { secretScanning } from "@keyward/core/secret-scanning";
 * const keyward = createKeyward({ store, scopes, tiers, jwt, features: [secretScanning()] });
 * ```
 *
 * A feature checks its own configuration when it is created (its factory throws a `TypeError`), so
 * a mistake fails at start as every kernel option does, and names the store parts it needs in
 * `requires`, checked by `createKeyward` with a message naming what is missing.
 */
import type { EventTypeDeclaration } from "../event-model/event-types.js";
import type { FeatureEndpointHandler } from "../http/routes/route-context.js";
import type { KeywardStore } from "../storage/index.js";
import type { FeatureKernel } from "./feature-kernel.js";
import type { KernelExtensions } from "./kernel-extensions.js";
import type { PathBuilder } from "./openapi-contribution.js";
import type { UsageSection } from "./usage-section.js";

export type { FeatureKernel, FeatureLimits, FeatureLog, KeyModel } from "./feature-kernel.js";

/**
 * A feature, as a host lists it. `Name` keys its API on the instance (`keyward[name]`), typed from
 * the list: an instance has `keyward.webhooks` only when `webhooks()` is listed.
 */
export interface KeywardFeature<Name extends string = string, Api = undefined> {
  readonly name: Name;
  /**
   * Store parts the feature cannot work without, each with what to do about a store that lacks it
   * (`createKeyward` throws a `TypeError` quoting it).
   */
  readonly requires?: readonly StoreRequirement[];
  /**
   * Other features this one works with and cannot work without, by name (`webhooks` needs
   * `events`): `createKeyward` throws a `TypeError` naming the one missing from the list.
   */
  readonly requiresFeatures?: readonly string[];
  /**
   * What the feature changes in the kernel itself, at the kernel's named extension points (key
   * prefixes, who may act on organizations' keys, the events written with each change…), read
   * before the kernel is built. Two features may not fill the same point.
   */
  readonly extends?: KernelExtensions;
  /**
   * The event types the feature writes (`event-model/event-types.ts`): each with the schema of its
   * `data` and whether it goes to the key's audit log. The audit log's type filter, a webhook
   * endpoint's `types` and the OpenAPI document know the types of the listed features; a type the
   * kernel has or another listed feature declares is a configuration error.
   */
  readonly eventTypes?: readonly EventTypeDeclaration[];
  /** Called once by `createKeyward`, after the kernel is built. */
  install(kernel: FeatureKernel): FeatureParts<Api>;
}

export interface StoreRequirement {
  /** Whether the store has what the feature needs. */
  has(store: KeywardStore): boolean;
  /** What is missing and how to get it, e.g. "a key store that keeps events (`keys.events`)". */
  missing: string;
}

/** What a feature contributes. Every part is optional. */
export interface FeatureParts<Api = undefined> {
  /**
   * Endpoints below the base path that authenticate their requests themselves (a signature, say):
   * answered before the session checks, and before the kernel's routes.
   */
  routes?: readonly FeatureRoute[];
  /**
   * Endpoints on a key for a signed-in user, answered after the kernel's session checks, as the
   * kernel's own are (`PATCH /{key_id}`, `GET /{key_id}/events`).
   */
  endpoints?: readonly FeatureEndpoint[];
  /** The OpenAPI paths of those routes, listed after the kernel's. */
  openapi?: readonly PathBuilder[];
  /**
   * Sections of a key's usage report (`GET {basePath}/{key_id}/usage`), each a property read with
   * the report and described by its schema (`usage-section.ts`): budgets' standing, a meter's
   * count in the open window.
   */
  usage?: readonly UsageSection[];
  /** The feature's API on the instance, as `keyward[name]`. */
  api?: Api;
  /**
   * Called once every listed feature is installed and the instance is built, still inside
   * `createKeyward`: the place for checks that need the whole instance (a throw fails the start).
   */
  ready?(): void;
  /** Stops what the feature runs in the background; awaited by `keyward.close()`. */
  close?(): Promise<void>;
}

export interface FeatureRoute {
  /** Below the base path, starting with "/": `/secret-scanning`. */
  subpath: string;
  /** Every method: the route answers 405 itself for those it does not take. */
  handle(request: Request): Promise<Response>;
}

export interface FeatureEndpoint {
  /** A key's own path or one below it: `/{key_id}`, `/{key_id}/events`. */
  path: "/{key_id}" | `/{key_id}/${string}`;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  handle: FeatureEndpointHandler;
}

/** The API each listed feature puts on the instance, keyed by the feature's name. */
export type FeatureApis<Features extends readonly KeywardFeature<string, unknown>[]> = {
  readonly [Feature in Features[number] as Feature extends KeywardFeature<infer Name, infer Api>
    ? [Api] extends [undefined]
      ? never
      : Name
    : never]: Feature extends KeywardFeature<string, infer Api> ? Api : never;
};
