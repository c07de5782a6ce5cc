/**
 * The configuration the HTTP suite's expectations are written against: tiers and their limits, the
 * scopes the host routes need, and the host route. Defaults to the demo contract; a project with its
 * own tiers, scopes or route passes them through `HttpSuiteOptions` and the same checks apply.
 */
import {
  DEMO_SCOPES,
  DEMO_TIER_LIMITS,
  DEMO_WINDOW_SECONDS,
  PROFILE_ROUTE,
} from "./demo-contract.js";
import type { HttpSuiteOptions } from "./options.js";
import { unconfiguredName } from "./unconfigured-name.js";

export interface SuiteTier {
  name: string;
  /** Requests a minute. */
  limit: number;
}

export interface SuiteContract {
  /** Lowest first; at least two, so that a tier above the account's can be asked for. */
  tiers: readonly SuiteTier[];
  lowestTier: SuiteTier;
  /** The second-lowest tier: the one a lowest-tier account may not create keys at. */
  secondTier: SuiteTier;
  highestTier: SuiteTier;
  /** The rate-limit window of every tier, in seconds. */
  windowSeconds: number;
  /** The scope `GET` on the host route needs. */
  readScope: string;
  /** The scope `PUT` on the host route needs. */
  writeScope: string;
  /** Every configured scope, as `GET {basePath}/scopes` lists them. */
  scopes: readonly string[];
  /** Configured scopes other than the host route's two: a key with only these may use neither. */
  unrelatedScopes: readonly string[];
  /** A configured scope besides the read scope: the first unrelated one, else the write scope. */
  otherScope: string;
  /** A scope name that is not configured: create must refuse it. */
  unknownScope: string;
  /** A tier name that is not configured: create must refuse it. */
  unknownTier: string;
  /** The host route's template, as usage reports name it. */
  route: string;
  /** A concrete path of the host route for one slug (or id). */
  routePath(slug: string): string;
}

/** Resolves the suite's options against the demo contract's defaults, and checks they fit. */
export function resolveSuiteContract(options: HttpSuiteOptions): SuiteContract {
  const tiers = Object.entries(options.tiers ?? DEMO_TIER_LIMITS).map(([name, limit]) => ({
    name,
    limit,
  }));
  if (tiers.length < 2) {
    throw new Error("HttpSuiteOptions.tiers: give at least two tiers, lowest first");
  }
  const readScope = options.scopes?.read ?? "profile:read";
  const writeScope = options.scopes?.write ?? "profile:write";
  const scopes = options.scopes?.all ?? [...DEMO_SCOPES];
  for (const scope of [readScope, writeScope]) {
    if (!scopes.includes(scope)) {
      throw new Error(`HttpSuiteOptions.scopes.all: add "${scope}", the host route needs it`);
    }
  }
  const tierNames = tiers.map((tier) => tier.name);
  const unknownScope = options.unknownScope ?? unconfiguredName("billing:write", scopes);
  const unknownTier = options.unknownTier ?? unconfiguredName("platinum", tierNames);
  if (scopes.includes(unknownScope)) {
    throw new Error(`HttpSuiteOptions.unknownScope: "${unknownScope}" is a configured scope`);
  }
  if (tierNames.includes(unknownTier)) {
    throw new Error(`HttpSuiteOptions.unknownTier: "${unknownTier}" is a configured tier`);
  }
  const unrelatedScopes = scopes.filter((scope) => scope !== readScope && scope !== writeScope);
  const route = options.route?.template ?? PROFILE_ROUTE;
  const routePath =
    options.route?.path ?? ((slug: string) => route.replace(":slug", encodeURIComponent(slug)));
  return {
    tiers,
    lowestTier: tiers[0]!,
    secondTier: tiers[1]!,
    highestTier: tiers.at(-1)!,
    windowSeconds: DEMO_WINDOW_SECONDS,
    readScope,
    writeScope,
    scopes,
    unrelatedScopes,
    otherScope: unrelatedScopes[0] ?? writeScope,
    unknownScope,
    unknownTier,
    route,
    routePath,
  };
}
