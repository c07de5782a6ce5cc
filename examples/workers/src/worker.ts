/**
 * The demo contract as a Cloudflare Worker (module syntax): the six key-management endpoints from
 * `@keyward/fetch` and the two profile routes behind `withApiKey`. Configuration comes from the
 * Worker's bindings instead of the process environment: `KEYWARD_JWT_SECRET` (a secret) and
 * `KEYWARD_TIER_LIMITS` (a variable), read by the same `loadDemoConfig` every example uses.
 *
 * Keys, usage and rate limits live in a `memoryStore()` of the isolate: docs/getting-started-workers.md
 * says what a deployment needs instead.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import { organizations } from "@keyward/core/organizations";
import { permissions } from "@keyward/core/permissions";
import { secretScanning } from "@keyward/core/secret-scanning";
import { type DemoConfig, type Environment, loadDemoConfig } from "@keyward/example-demo/config";
import {
  DEMO_ENVIRONMENTS,
  DEMO_ORGANIZATION_ROLES,
  DEMO_SCOPE_DESCRIPTIONS,
  demoMemberships,
  demoTiers,
} from "@keyward/testing/demo-contract";
import { createApp } from "./app.js";

/** The bindings this Worker reads; every one is optional (the demo has defaults). */
export interface WorkerEnvironment {
  KEYWARD_JWT_SECRET?: string;
  KEYWARD_TIER_LIMITS?: string;
  DATABASE_URL?: string;
  REDIS_URL?: string;
  /** Where the secret-scanning endpoint fetches GitHub's signing keys; unset: GitHub's. */
  KEYWARD_SECRET_SCANNING_KEYS_URL?: string;
}

/**
 * Bindings arrive with the first request, so the app is built then, once per isolate, and reused by
 * every later request the isolate serves (that is what keeps the in-memory store's keys).
 */
let app: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request, env: WorkerEnvironment): Promise<Response> {
    app ??= createWorkerApp(env);
    return app(request);
  },
};

function createWorkerApp(env: WorkerEnvironment): (request: Request) => Promise<Response> {
  const config = workerConfig(env);
  if (config.usingDevelopmentSecret) {
    console.warn(
      "keyward: KEYWARD_JWT_SECRET is not set, so the public development secret signs sessions; " +
        "set one with `wrangler secret put KEYWARD_JWT_SECRET` before deploying",
    );
  }
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: DEMO_SCOPE_DESCRIPTIONS,
    tiers: demoTiers(config.tierLimits),
    jwt: { secret: config.jwtSecret },
    features: [
      // The demo contract (`@keyward/testing/demo-contract`): organizations from the `orgs` claim; PATCH on keys, environments
      // live and test, rotation with `gracePeriodSeconds` (the old secret keeps working up to 7
      // days); the audit log at GET /api/v1/api-keys/{key_id}/events (pruned on a timer set on
      // first use).
      organizations({ memberships: demoMemberships, roles: DEMO_ORGANIZATION_ROLES }),
      lifecycle({ environments: { ...DEMO_ENVIRONMENTS }, gracefulRotation: true }),
      events(),
      // Resource-limited keys: the profile routes pass `resource: { profile: slug }`; the last
      // client address of each key (CF-Connecting-IP, as the Fetch adapter reads it on Workers).
      permissions({
        recordAddress: true,
        ...(config.maxKeyLifetime ? { maxLifetime: config.maxKeyLifetime } : {}),
      }),
      // POST /api/v1/api-keys/secret-scanning: GitHub's signed leak reports (docs/leaked-keys.md),
      // checked with WebCrypto, as on every runtime.
      secretScanning(config.secretScanningKeysUrl ? { keysUrl: config.secretScanningKeysUrl } : {}),
    ],
    onError: (error) => console.error("keyward:", error),
  });
  return createApp(keyward);
}

/** The demo configuration from the bindings, refusing the stores this Worker cannot open. */
function workerConfig(env: WorkerEnvironment): DemoConfig {
  const config = loadDemoConfig(env as Environment);
  if (config.databaseUrl || config.redisUrl) {
    // A silent fallback to memory would lose every key on the next isolate: say so instead.
    throw new TypeError(
      "DATABASE_URL and REDIS_URL are not read by this Worker: it keeps keys in memory, per isolate " +
        "(docs/getting-started-workers.md, Storage)",
    );
  }
  return config;
}
