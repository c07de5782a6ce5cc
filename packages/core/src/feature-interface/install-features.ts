/**
 * Installs the features a host listed: checks each once (a name listed twice, a store part
 * missing, a route another feature or the kernel answers), then collects what they contribute.
 */
import type { KeywardStore } from "../storage/index.js";
import type { FeatureEndpoint, FeatureKernel, FeatureRoute, KeywardFeature } from "./feature.js";
import type { PathBuilder } from "./openapi-contribution.js";
import type { UsageSection } from "./usage-section.js";

export interface InstalledFeatures {
  /** Feature routes by subpath, answered before the kernel's. */
  routes: ReadonlyMap<string, FeatureRoute["handle"]>;
  /** Endpoints on keys, answered after the session checks as the kernel's are. */
  endpoints: readonly FeatureEndpoint[];
  openapi: readonly PathBuilder[];
  /** The sections features add to a key's usage report, with the feature each came from. */
  usage: readonly { feature: string; section: UsageSection }[];
  /** Each feature's API by its name. */
  apis: Record<string, unknown>;
  /** Runs every feature's `ready`, once the instance is built. */
  ready(): void;
  close(): Promise<void>;
}

/** The kernel's own subpaths a feature route may not take (a key id is any other segment). */
const kernelSubpaths = new Set(["", "/scopes"]);

export function checkFeatures(features: unknown, store: KeywardStore): void {
  if (features === undefined) return;
  if (!Array.isArray(features)) {
    throw new TypeError(
      "Keyward: `features` must be an array of features, like [secretScanning()]",
    );
  }
  const seen = new Set<string>();
  features.forEach((feature: unknown, index) => {
    if (!isFeature(feature)) {
      throw new TypeError(
        `Keyward: \`features[${index}]\` is not a feature (an object with a \`name\` and \`install\`); call the feature's function, e.g. secretScanning() rather than secretScanning`,
      );
    }
    if (seen.has(feature.name)) {
      throw new TypeError(
        `Keyward: the feature \`${feature.name}\` is listed twice in \`features\``,
      );
    }
    seen.add(feature.name);
    for (const requirement of feature.requires ?? []) {
      if (!requirement.has(store)) {
        throw new TypeError(
          `Keyward: the feature \`${feature.name}\` needs ${requirement.missing}`,
        );
      }
    }
  });
  for (const feature of features as KeywardFeature<string, unknown>[]) {
    for (const needed of feature.requiresFeatures ?? []) {
      if (!seen.has(needed)) {
        throw new TypeError(
          `Keyward: the feature \`${feature.name}\` needs the feature \`${needed}\` listed in \`features\` too`,
        );
      }
    }
  }
}

export function installFeatures(
  features: readonly KeywardFeature<string, unknown>[],
  kernel: FeatureKernel,
): InstalledFeatures {
  const routes = new Map<string, FeatureRoute["handle"]>();
  const endpoints: FeatureEndpoint[] = [];
  const openapi: PathBuilder[] = [];
  const usage: { feature: string; section: UsageSection }[] = [];
  const apis: Record<string, unknown> = {};
  const closers: (() => Promise<void>)[] = [];
  const readies: (() => void)[] = [];
  for (const feature of features) {
    const parts = feature.install(kernel);
    for (const route of parts.routes ?? []) {
      if (kernelSubpaths.has(route.subpath) || routes.has(route.subpath)) {
        throw new TypeError(
          `Keyward: the feature \`${feature.name}\` serves ${route.subpath}, which is already taken`,
        );
      }
      routes.set(route.subpath, route.handle);
    }
    endpoints.push(...(parts.endpoints ?? []));
    openapi.push(...(parts.openapi ?? []));
    for (const section of parts.usage ?? []) usage.push({ feature: feature.name, section });
    if (parts.api !== undefined) apis[feature.name] = parts.api;
    if (parts.close) closers.push(parts.close);
    if (parts.ready) readies.push(parts.ready);
  }
  return {
    routes,
    endpoints,
    openapi,
    usage,
    apis,
    ready() {
      for (const ready of readies) ready();
    },
    async close() {
      // Every feature is stopped even when one fails.
      const results = await Promise.allSettled(closers.map((close) => close()));
      const failed = results.find((result) => result.status === "rejected");
      if (failed) throw failed.reason;
    },
  };
}

function isFeature(value: unknown): value is KeywardFeature<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { name?: unknown }).name === "string" &&
    typeof (value as { install?: unknown }).install === "function"
  );
}
