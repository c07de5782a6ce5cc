import { createKeyward, type FeatureApis, type Keyward, type KeywardConfig } from "@keyward/core";
import { agentTokens } from "@keyward/core/agent-tokens";
import type { HoldStore } from "@keyward/core/budgets";
import { events } from "@keyward/core/events";
import { imports } from "@keyward/core/imports";
import { lifecycle } from "@keyward/core/lifecycle";
import { openapi } from "@keyward/core/openapi";
import { organizations } from "@keyward/core/organizations";
import { permissions } from "@keyward/core/permissions";
import { recoverable } from "@keyward/core/recoverable";
import { secretScanning } from "@keyward/core/secret-scanning";
import { otel } from "@keyward/otel";
import {
  DEMO_ENVIRONMENTS,
  DEMO_OPENAPI_ROUTES,
  DEMO_ORGANIZATION_ROLES,
  DEMO_SCOPE_DESCRIPTIONS,
  demoMemberships,
  demoTiers,
} from "@keyward/testing/demo-contract";
import type { MeterProvider } from "@opentelemetry/api";
import { COMPLETIONS_SCOPE_DESCRIPTIONS } from "./completions/completions-contract.js";
import { demoBudgets } from "./completions/demo-budgets.js";
import { type DemoConfig, type Environment, loadDemoConfig, processEnvironment } from "./config.js";
import { type DemoMeteringFeature, openDemoMetering } from "./metering/demo-metering.js";
import { createDemoMetrics, type DemoMetrics } from "./metrics/demo-metrics.js";
import { openDemoStore } from "./store.js";

/** The demo's instance: the kernel and the API of every feature it lists. */
export type DemoKeyward = Keyward & FeatureApis<DemoFeatures>;

export interface Demo {
  config: DemoConfig;
  keyward: DemoKeyward;
  /** Which backend holds what, for the banner. */
  storage: string;
  /** Where metering sends usage, for the banner; undefined when it is not listed. */
  metering?: string;
  /** What `otel()` reports, served at `GET /metrics` in Prometheus text. */
  metrics: DemoMetrics;
}

/**
 * Reads the environment, opens the store (migrating PostgreSQL when `DATABASE_URL` is set) and
 * creates the Keyward instance every example serves.
 *
 * @example
 * const { config, keyward, storage } = await createDemo();
 * app.use(keywardRouter(keyward));
 */
export async function createDemo(env: Environment = processEnvironment()): Promise<Demo> {
  const config = loadDemoConfig(env);
  const store = await openDemoStore(config);
  const metrics = createDemoMetrics({ token: config.metricsToken });
  let metering: Awaited<ReturnType<typeof openDemoMetering>> | undefined;
  try {
    metering = config.metering ? await openDemoMetering(config.metering, store.sql) : undefined;
  } catch (error) {
    await store.storage.close?.();
    throw error;
  }
  const keyward = createKeyward({
    store: store.storage,
    ...demoKeywardOptions(
      config,
      { meterProvider: metrics.meterProvider, ...(metering ? { metering: metering.feature } : {}) },
      store.holds ? { holds: store.holds } : {},
    ),
  });
  return {
    config,
    keyward,
    storage: store.description,
    metrics,
    ...(metering ? { metering: metering.description } : {}),
  };
}

/**
 * Everything the demo configures Keyward with, but the store: the kernel's options and every
 * feature (the demo contract: every example runs the whole library, not a subset), so its HTTP
 * behaviour is the whole library's.
 */
export function demoKeywardOptions(
  config: DemoConfig,
  observability: DemoFeatureParts = {},
  parts: DemoStoreParts = {},
): Omit<KeywardConfig<DemoFeatures>, "store"> & { features: DemoFeatures } {
  return {
    // The contract's four scopes, and `completions:write` for POST /api/v1/completions (v0.4).
    scopes: { ...DEMO_SCOPE_DESCRIPTIONS, ...COMPLETIONS_SCOPE_DESCRIPTIONS },
    tiers: demoTiers(config.tierLimits, { ownerLimits: config.ownerLimits, quotas: config.quotas }),
    features: demoFeatures(config, observability, parts),
    // Keys are live (`sk_live_`) unless created with "environment": "test" (`sk_test_`).
    keys: { environments: { ...DEMO_ENVIRONMENTS } },
    jwt: { secret: config.jwtSecret },
    // 500s answer without internals; this is where their causes go.
    onError: (error) => console.error("keyward:", error),
  };
}

type DemoFeatures = ReturnType<typeof demoFeatures>;

/** Where the demo's `otel()` reports; without a meter provider, to the global one (if any). */
export interface DemoObservability {
  meterProvider?: MeterProvider;
}

/** Store parts a feature keeps its own state in, when the demo's store has them. */
export interface DemoStoreParts {
  /** `budgets()`' holds (Redis's with `REDIS_URL`); default this process's memory. */
  holds?: HoldStore;
}

/** What `demoFeatures` takes ready-made: made at start, from the environment, by `createDemo`. */
export interface DemoFeatureParts extends DemoObservability {
  /** `metering()` to Stripe, when `KEYWARD_STRIPE_SECRET_KEY` is set (metering/demo-metering.ts). */
  metering?: DemoMeteringFeature;
}

/** The features the demo lists: all of them. */
export function demoFeatures(
  config: DemoConfig,
  observability: DemoFeatureParts = {},
  parts: DemoStoreParts = {},
) {
  return [
    // POST /api/v1/api-keys/secret-scanning: GitHub's signed leak reports revoke the keys they
    // name (docs/leaked-keys.md); the signing keys come from GitHub unless
    // KEYWARD_SECRET_SCANNING_KEYS_URL points elsewhere (a staging key server, a test's).
    secretScanning(config.secretScanningKeysUrl ? { keysUrl: config.secretScanningKeysUrl } : {}),
    // Organization memberships from the JWT claim `orgs`.
    // A `developer` may manage keys but grant only the profile scopes (v0.3).
    organizations({ memberships: demoMemberships, roles: DEMO_ORGANIZATION_ROLES }),
    lifecycle({
      // Rotation with `gracePeriodSeconds`: the old secret keeps working up to 7 days.
      gracefulRotation: true,
      // PATCH /api/v1/api-keys/{key_id} (on by default): rename, metadata, disable and enable,
      // narrow scopes, and the IP allowlist, which every example checks against the socket's
      // address (no proxy is trusted: a client cannot name its own address in a header).
    }),
    // GET /api/v1/api-keys/{key_id}/events: every key change, with who made it, kept 90 days.
    events(),
    // Keys brought from better-auth (`keyward import better-auth`, docs/importing.md) keep their
    // tokens (`ba_…`, `acme_…`, or none): every token that is neither Keyward's format nor a JWT
    // is looked up under the other system's hash, unless KEYWARD_IMPORT_PREFIXES (ba_,acme_)
    // narrows it; each is rehashed to Keyward's hash on first use.
    imports(config.importPrefixes ? { prefixes: config.importPrefixes } : {}),
    // With KEYWARD_KEY_RING (the base64 of 32 bytes), every secret issued is also kept sealed,
    // and POST /api/v1/api-keys/{key_id}/reveal shows it again to a user who may rotate the key
    // and signed in within 5 minutes (docs/security.md).
    ...(config.keyRing
      ? [recoverable({ keyRing: { current: "demo", keys: { demo: config.keyRing } } })]
      : []),
    // GET /api/v1/api-keys/openapi.json.
    openapi({
      serve: true,
      info: { title: "Keyward demo", version: "0.2.0" },
      routes: DEMO_OPENAPI_ROUTES,
    }),
    // Verifications, limit refusals, store calls and breakers as OpenTelemetry metrics, which the
    // servers answer at GET /metrics in Prometheus text (docs/observability.md).
    otel(observability.meterProvider ? { meterProvider: observability.meterProvider } : {}),
    // With KEYWARD_STRIPE_SECRET_KEY: every request served with a key adds 1 to its owner's
    // `keyward_api_requests` and the credits it spent to `keyward_api_credits`, per
    // KEYWARD_METER_WINDOW (default 1m), exported to Stripe, or to the server
    // KEYWARD_STRIPE_API_URL names (docs/billing.md).
    ...(observability.metering ? [observability.metering] : []),
    // Resource-limited keys: `resources` on create and PATCH; the profile routes pass
    // `resource: { profile: slug }`, so a key limited to alice gets 403 for bob. With
    // KEYWARD_MAX_KEY_LIFETIME (e.g. 30d), every tier's keys must expire within it. Each key's
    // last client address is shown beside its lastUsedAt (lastUsedAddress: personal data, off by
    // default in Keyward; docs/permissions.md).
    permissions({
      lastUsedAddress: true,
      ...(config.maxKeyLifetime ? { maxLifetime: config.maxKeyLifetime } : {}),
    }),
    // POST /api/v1/api-keys/tokens: a key exchanged for a token bound to one audience (at most
    // 15 minutes, the key's scopes), its keys at GET /api/v1/api-keys/jwks.json; `/mcp` takes
    // such tokens for its own resource (docs/agents.md). Signed with KEYWARD_TOKEN_SIGNING_KEY,
    // so that every instance given it verifies them; unset, with a key made at start: the tokens
    // are good on this instance only, as long as the process lives.
    agentTokens(config.tokenSigningKeys ? { signingKeys: config.tokenSigningKeys } : {}),
    // POST /api/v1/completions reserves `max_tokens` from the key's credits and settles what it
    // streamed (examples/*/src/completions.ts, docs/budgets.md).
    demoBudgets(parts.holds),
  ] as const;
}

/**
 * Runs `close` once on SIGINT or SIGTERM, then exits: Node, Bun and Deno all deliver these through
 * `process.on`.
 */
export function closeOnSignal(close: () => Promise<void>): void {
  const proc = (globalThis as { process?: NodeJS.Process }).process;
  if (!proc) return;
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    close()
      .catch((error) => console.error("error while closing:", error))
      .finally(() => proc.exit(0));
  };
  proc.once("SIGINT", stop);
  proc.once("SIGTERM", stop);
}

/** Prints a start-up failure as one readable line (a bad variable, an unreachable database). */
export function exitOnStartupError(error: unknown): never {
  console.error(`Could not start the demo: ${error instanceof Error ? error.message : error}`);
  const proc = (globalThis as { process?: NodeJS.Process }).process;
  proc?.exit(1);
  throw error;
}
