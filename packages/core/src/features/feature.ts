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
import type { KeywardContext } from "../keyward/context.js";
import type { PathBuilder } from "../openapi/paths/path-builder.js";
import type { KeywardStore } from "../storage/index.js";

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
  /** Called once by `createKeyward`, after the kernel is built. */
  install(kernel: FeatureKernel): FeatureParts<Api>;
}

export interface StoreRequirement {
  /** Whether the store has what the feature needs. */
  has(store: KeywardStore): boolean;
  /** What is missing and how to get it, e.g. "a key store that keeps events (`keys.events`)". */
  missing: string;
}

/** What the kernel offers a feature. */
export interface FeatureKernel {
  /** The instance's resolved configuration and its stores, clock, hasher and failure reporting. */
  readonly context: KeywardContext;
  /** Normalised: starts with "/", no trailing slash. */
  readonly basePath: string;
}

/** What a feature contributes. Every part is optional. */
export interface FeatureParts<Api = undefined> {
  /**
   * Endpoints below the base path that authenticate their requests themselves (a signature, say):
   * answered before the session checks, and before the kernel's routes.
   */
  routes?: readonly FeatureRoute[];
  /** The OpenAPI paths of those routes, listed after the kernel's. */
  openapi?: readonly PathBuilder[];
  /** The feature's API on the instance, as `keyward[name]`. */
  api?: Api;
  /** Stops what the feature runs in the background; awaited by `keyward.close()`. */
  close?(): Promise<void>;
}

export interface FeatureRoute {
  /** Below the base path, starting with "/": `/secret-scanning`. */
  subpath: string;
  /** Every method: the route answers 405 itself for those it does not take. */
  handle(request: Request): Promise<Response>;
}

/** The API each listed feature puts on the instance, keyed by the feature's name. */
export type FeatureApis<Features extends readonly KeywardFeature<string, unknown>[]> =
  UnionToIntersection<
    {
      [Index in keyof Features]: Features[Index] extends KeywardFeature<infer Name, infer Api>
        ? [Api] extends [undefined]
          ? unknown
          : { readonly [Key in Name]: Api }
        : unknown;
    }[number]
  >;

type UnionToIntersection<Union> = (Union extends unknown ? (value: Union) => void : never) extends (
  value: infer Intersection,
) => void
  ? Intersection
  : never;
