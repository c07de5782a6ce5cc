/**
 * The demo contract as a Cloudflare Worker (module syntax): the key-management endpoints from
 * `@keyward/fetch`, the two profile routes behind `withApiKey`, and v0.4's two routes: `/mcp`, an
 * MCP server guarded as an OAuth protected resource (mcp.ts), and `POST /api/v1/completions`,
 * which reserves, streams and settles (completions.ts). Configuration comes from the
 * Worker's bindings instead of the process environment: `KEYWARD_JWT_SECRET` (a secret) and
 * `KEYWARD_TIER_LIMITS` (a variable), read by the same `loadDemoConfig` every example uses.
 *
 * Keys, usage, rate limits, quotas and credits live in Durable Objects (`@keyward/cloudflare`,
 * bound as `KEYWARD` in wrangler.toml), so they are the same for every isolate and location: see
 * docs/cloudflare.md.
 */
import { type CloudflareStore, cloudflareStore, type ObjectNamespace } from "@keyward/cloudflare";
import { createKeyward, type FeatureApis, type Keyward } from "@keyward/core";
import { agentTokens, type SigningKeysConfig } from "@keyward/core/agent-tokens";
import { budgets } from "@keyward/core/budgets";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import { organizations } from "@keyward/core/organizations";
import { permissions } from "@keyward/core/permissions";
import { secretScanning } from "@keyward/core/secret-scanning";
import { COMPLETIONS_SCOPE_DESCRIPTIONS } from "@keyward/example-demo/completions";
import { type DemoConfig, type Environment, loadDemoConfig } from "@keyward/example-demo/config";
import {
  DEMO_ENVIRONMENTS,
  DEMO_ORGANIZATION_ROLES,
  DEMO_SCOPE_DESCRIPTIONS,
  demoMemberships,
  demoTiers,
} from "@keyward/testing/demo-contract";
import { createApp } from "./app.js";
import { mcpResource } from "./mcp.js";
import { tokenSigningKeys } from "./token-signing.js";

/** The bindings this Worker reads; every one is optional (the demo has defaults). */
export interface WorkerEnvironment {
  KEYWARD_JWT_SECRET?: string;
  KEYWARD_TIER_LIMITS?: string;
  DATABASE_URL?: string;
  REDIS_URL?: string;
  /**
   * The private key exchanged tokens are signed with, as a JWK (JSON), the same in every isolate:
   * a secret. Unset: a key per isolate (token-signing.ts).
   */
  KEYWARD_TOKEN_SIGNING_KEY?: string;
  /**
   * `/mcp`'s resource, the URL clients reach it at (`https://api.example.com/mcp`): the audience
   * its tokens must name. Unset: `/mcp` is not served (mcp.ts).
   */
  KEYWARD_MCP_RESOURCE?: string;
  /** Where the secret-scanning endpoint fetches GitHub's signing keys; unset: GitHub's. */
  KEYWARD_SECRET_SCANNING_KEYS_URL?: string;
  /** The Durable Object namespace of `KeywardObject` (wrangler.toml's `[[durable_objects.bindings]]`). */
  KEYWARD?: ObjectNamespace;
}

/** The object class the `KEYWARD` binding names: a Worker exports it for Cloudflare to run. */
export { KeywardObject } from "@keyward/cloudflare";

/** What `ctx.waitUntil` is, of a module Worker's third argument. */
interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * The store is built once per isolate, with the first request's bindings, and kept: its key cache
 * then serves the isolate's later requests (a key changed anywhere is still refused at once: the
 * limit objects check the record's version). Keyward itself is built per request and closed after
 * the response with `ctx.waitUntil`, which writes that request's buffered usage: a Worker cannot
 * rely on a timer running once its request is over. A response that streams (completions) holds
 * a reservation until its stream ends: the Keyward is closed once that hold is settled.
 */
let store: CloudflareStore | undefined;

export default {
  async fetch(request: Request, env: WorkerEnvironment, ctx: WorkerContext): Promise<Response> {
    store ??= openStore(env);
    const config = workerConfig(env);
    const keyward = createWorkerKeyward(
      config,
      store,
      await tokenSigningKeys(config.tokenSigningKeys),
    );
    const pending: Promise<unknown>[] = [];
    try {
      return await createApp(keyward, {
        mcp: mcpResource(env.KEYWARD_MCP_RESOURCE),
        pending: (work) => pending.push(work),
      })(request);
    } finally {
      ctx.waitUntil(Promise.allSettled(pending).then(() => keyward.close()));
    }
  },
};

function openStore(env: WorkerEnvironment): CloudflareStore {
  if (env.KEYWARD === undefined) {
    throw new TypeError(
      "The KEYWARD Durable Object binding is missing: bind KeywardObject as KEYWARD (wrangler.toml, docs/cloudflare.md)",
    );
  }
  if (workerConfig(env).usingDevelopmentSecret) {
    console.warn(
      "keyward: KEYWARD_JWT_SECRET is not set, so the public development secret signs sessions; " +
        "set one with `wrangler secret put KEYWARD_JWT_SECRET` before deploying",
    );
  }
  return cloudflareStore({ namespace: env.KEYWARD });
}

function createWorkerKeyward(
  config: DemoConfig,
  shared: CloudflareStore,
  signingKeys: SigningKeysConfig,
): Keyward & FeatureApis<ReturnType<typeof workerFeatures>> {
  return createKeyward({
    store: shared,
    // The contract's four scopes, and `completions:write` for POST /api/v1/completions (v0.4).
    scopes: { ...DEMO_SCOPE_DESCRIPTIONS, ...COMPLETIONS_SCOPE_DESCRIPTIONS },
    tiers: demoTiers(config.tierLimits),
    jwt: { secret: config.jwtSecret },
    // The demo contract's environments, live and test.
    keys: { environments: { ...DEMO_ENVIRONMENTS } },
    features: workerFeatures(config, shared, signingKeys),
    onError: (error) => console.error("keyward:", error),
  });
}

/** The features the Worker lists: the demo's, on what a Worker has. */
function workerFeatures(
  config: DemoConfig,
  shared: CloudflareStore,
  signingKeys: SigningKeysConfig,
) {
  return [
    // The demo contract (`@keyward/testing/demo-contract`): organizations from the `orgs` claim; PATCH on keys,
    // rotation with `gracePeriodSeconds` (the old secret keeps working up to 7
    // days); the audit log at GET /api/v1/api-keys/{key_id}/events (pruned on a timer set on
    // first use).
    organizations({ memberships: demoMemberships, roles: DEMO_ORGANIZATION_ROLES }),
    lifecycle({ gracefulRotation: true }),
    events(),
    // Resource-limited keys: the profile routes pass `resource: { profile: slug }`; the last
    // client address of each key (CF-Connecting-IP, as the Fetch adapter reads it on Workers).
    permissions({
      lastUsedAddress: true,
      ...(config.maxKeyLifetime ? { maxLifetime: config.maxKeyLifetime } : {}),
    }),
    // POST /api/v1/api-keys/secret-scanning: GitHub's signed leak reports (docs/leaked-keys.md),
    // checked with WebCrypto, as on every runtime.
    secretScanning(config.secretScanningKeysUrl ? { keysUrl: config.secretScanningKeysUrl } : {}),
    // POST /api/v1/api-keys/tokens: a key exchanged for a token bound to one audience (at most
    // 15 minutes, the key's scopes), its keys at GET /api/v1/api-keys/jwks.json; `/mcp` takes
    // such tokens for its own resource (docs/agents.md). The ring is the isolate's, not the
    // request's: token-signing.ts.
    agentTokens({ signingKeys }),
    // POST /api/v1/completions reserves `max_tokens` from the key's credits and settles what it
    // streamed; the holds are in the store's `holds` object, which releases a hold nobody
    // settled at its TTL from its alarm (docs/cloudflare.md, "Budgets and holds").
    budgets({ holds: shared.holds }),
  ] as const;
}

/** The demo configuration from the bindings, refusing the stores this Worker cannot open. */
function workerConfig(env: WorkerEnvironment): DemoConfig {
  const config = loadDemoConfig(env as Environment);
  if (config.databaseUrl || config.redisUrl) {
    // Configured for another store: say so rather than ignore it.
    throw new TypeError(
      "DATABASE_URL and REDIS_URL are not read by this Worker: it keeps keys in Durable Objects " +
        "(docs/cloudflare.md)",
    );
  }
  return config;
}
