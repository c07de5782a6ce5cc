import type { StandardSchemaV1 } from "@standard-schema/spec";
import { createKeysApi, type KeysApi } from "../api/keys-api.js";
import { createUsageApi, type UsageApi } from "../api/usage-api.js";
import { failedLookupLimiter } from "../auth/failed-lookup-limiter.js";
import { createJwtVerifier } from "../auth/jwt.js";
import {
  isPromise,
  type Pending,
  type PendingVerify,
  pendingVerify,
} from "../auth/pending-verify.js";
import type { VerifyOptions, VerifyResult } from "../auth/principal.js";
import { createVerify } from "../auth/verify.js";
import { mergeVerifyPhases } from "../auth/verify-phases.js";
import { eventBus } from "../bus/event-bus.js";
import { systemClock } from "../clock.js";
import { createEnvironments } from "../environments/environments.js";
import { KeywardError } from "../errors/keyward-error.js";
import type { FeatureApis, KeywardFeature } from "../features/feature.js";
import {
  checkFeatures,
  type InstalledFeatures,
  installFeatures,
} from "../features/install-features.js";
import { mergeExtensions } from "../features/kernel-extensions.js";
import type { InstanceDescription } from "../features/openapi-contribution.js";
import { createHandle, underBasePath } from "../http/handle.js";
import { defaultBodyLimit } from "../http/read-json-body.js";
import { createRouter } from "../http/router.js";
import { kernelEndpoints } from "../http/routes/index.js";
import { createKeyFormat, DEFAULT_KEY_PREFIX, type KeyFormat } from "../keys/format.js";
import { createSecretHasher } from "../keys/hash.js";
import { checkedKeyFields } from "../keys/key-field.js";
import { mergeWriteHooks } from "../keys/write-hooks.js";
import { layeredLimiter } from "../limits/layered-limiter.js";
import { consoleLogger, silentLogger } from "../logging/logger.js";
import { repeatFilter } from "../logging/repeat-filter.js";
import { requestIdOf } from "../logging/request-id.js";
import { fromStructuredLogger, isStructuredLogger } from "../logging/structured-logger.js";
import { warnOnce } from "../logging/warn-once.js";
import { cryptoRandom } from "../random.js";
import { createScopeRegistry } from "../scopes/scope-registry.js";
import {
  type ScopeRequirement,
  scopeRequirementProblem,
  scopesNamedBy,
} from "../scopes/scope-requirement.js";
import { attachStoreLogger } from "../storage/attach-store-logger.js";
import { accountTierSync } from "../tiers/account-tier-sync.js";
import { createTierLadder } from "../tiers/tier-ladder.js";
import { routeWithMethod } from "../usage/route-label.js";
import { defaultUsagePruneIntervalMs } from "../usage/usage-config.js";
import { createUsageRecorder } from "../usage/usage-recorder.js";
import { usageRetention } from "../usage/usage-retention.js";
import {
  type CreateKeyBody,
  createKeyBodySchema,
  keyFieldSchemas,
} from "../validation/create-key-body.js";
import { rotateKeyBodySchema } from "../validation/rotate-key-body.js";
import { updateKeyBodySchema } from "../validation/update-key-body.js";
import { checkConfig, warnAboutConfig } from "./check-config.js";
import type { KeywardConfig } from "./config.js";
import type { KeywardContext } from "./context.js";

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

const defaultBasePath = "/api/v1/api-keys";

/**
 * Creates a Keyward instance. Configuration is checked here, once: a bad scope name, an empty tier
 * list, a malformed rate limit or weak JWT settings throw a `TypeError` at start, not on a request.
 *
 * @example
 * const keyward = createKeyward({
 *   store: memoryStore(),
 *   scopes: { "profile:read": "Read profiles", "profile:write": "Edit profiles" },
 *   tiers: { free: { rateLimit: { limit: 60, window: "1m" } }, pro: { rateLimit: { limit: 600, window: "1m" } } },
 *   jwt: { secret: process.env.JWT_SECRET! },
 * });
 * const response = await keyward.handle(request); // the key-management endpoints
 */
export function createKeyward<
  const Features extends readonly KeywardFeature<string, unknown>[] = [],
>(config: KeywardConfig<Features>): Keyward & FeatureApis<Features> {
  checkConfig(config);
  checkFeatures(config.features, config.store);
  const features = config.features ?? [];
  const extensions = mergeExtensions(features);
  const keyFields = checkedKeyFields(extensions.fields ?? []);
  const http = config.http ?? {};
  const basePath = normaliseBasePath(http.basePath ?? defaultBasePath);
  const bodyLimit = http.bodyLimit ?? defaultBodyLimit;
  if (!Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new TypeError("Keyward: `http.bodyLimit` must be a positive number of bytes");
  }
  const clock = config.clock ?? systemClock;
  const random = cryptoRandom;
  const scopes = createScopeRegistry(config.scopes);
  const tiers = createTierLadder(config.tiers);
  const layeredLimits = layeredLimiter(config.store.rateLimits, config.store.allowances, {
    onCreditSaveError: (error) =>
      reportFailure("Keyward: could not save credit balances (kept for the next save)", error),
  });
  if (tiers.layered && !layeredLimits) {
    throw new TypeError(
      "Keyward: a tier has `ownerRateLimit` or `quota`, but the store's rate limits cannot apply layered limits (`consumeLayers`). Use memoryStore(), redisStore() or combineStores(postgresStore(...), memoryStore()).",
    );
  }
  const logger =
    config.logger === false
      ? silentLogger
      : isStructuredLogger(config.logger)
        ? fromStructuredLogger(config.logger)
        : (config.logger ?? consoleLogger);
  warnAboutConfig(config, logger);
  const repeats = repeatFilter();
  const reportFailure = (message: string, cause: unknown, request?: Request) => {
    // A failing logger or hook must not turn a handled failure into a crash.
    try {
      const suffix = repeats.admit(message, cause, clock.now());
      if (suffix !== null) {
        const requestId = requestIdOf(request);
        if (requestId === undefined) logger.error(`${message}${suffix}`, cause);
        else logger.error(`${message}${suffix}`, cause, { requestId });
      }
    } catch {}
    try {
      config.onError?.(cause, request);
    } catch {}
  };
  // The store's background failures (dropped connections, lost invalidations) join the rest.
  attachStoreLogger(config.store, reportFailure);
  const verifyJwt = config.jwt
    ? createJwtVerifier(config.jwt, clock)
    : async () => {
        throw new KeywardError("invalid_token", "JWT authentication is not configured");
      };
  if (extensions.environments !== undefined && config.keys?.prefix !== undefined) {
    throw new TypeError(
      "Keyward: set `lifecycle({ environments })` or `keys.prefix`, not both: with environments, each one's prefix is given in `environments`",
    );
  }
  const environments = createEnvironments(
    extensions.environments,
    config.keys?.prefix ?? DEFAULT_KEY_PREFIX,
  );
  let format: KeyFormat;
  try {
    format = createKeyFormat({ prefixes: environments.prefixes, random });
  } catch (error) {
    // The format names the prefix; the option it came from is what the host has to fix.
    const option = extensions.environments === undefined ? "keys.prefix" : "environments";
    throw new TypeError(`Keyward: \`${option}\`: ${(error as Error).message}`);
  }
  const usageRecorder = createUsageRecorder(config.store.usage, {
    ...(config.usage?.flushIntervalMs === undefined
      ? {}
      : { flushIntervalMs: config.usage.flushIntervalMs }),
    ...(config.usage?.maxBuffered === undefined ? {} : { maxBuffered: config.usage.maxBuffered }),
    onError: (error: unknown) => reportFailure("writing usage failed; it will be retried", error),
  });
  const usageStore = config.store.usage;
  const retainDays = config.usage?.retainDays;
  // checkConfig made sure the store can prune when `retainDays` is set.
  const retention =
    retainDays === undefined || !usageStore.prune
      ? undefined
      : usageRetention({
          // Looked up on each run, not bound once: the store's method as it is then.
          prune: (beforeDay) => usageStore.prune!(beforeDay),
          clock,
          retainDays,
          intervalMs: config.usage?.pruneIntervalMs ?? defaultUsagePruneIntervalMs,
          onError: (error) => reportFailure("pruning usage history failed", error),
        });

  const bus = eventBus(reportFailure);
  // The events feature's `requires` made sure the store writes events.
  const events =
    extensions.events && config.store.events
      ? extensions.events({
          log: config.store.events,
          fields: keyFields,
          bus,
          keys: config.store.keys,
          clock,
          random,
          reportFailure,
        })
      : undefined;
  const context: KeywardContext = {
    keys: config.store.keys,
    usage: config.store.usage,
    rateLimits: config.store.rateLimits,
    layeredLimits,
    format,
    environments,
    hasher: createSecretHasher(
      config.keys?.pepper === undefined ? {} : { pepper: config.keys.pepper },
    ),
    scopes,
    tiers,
    accountTiers: accountTierSync(config.store.keys, {
      clock,
      onError: (error) => reportFailure("recording an account's tier on its keys failed", error),
    }),
    clock,
    random,
    createKeyBody: createKeyBodySchema({
      scopes,
      tiers,
      clock,
      organizations: extensions.organizations !== undefined,
      environments: environments.configured ? environments.names : undefined,
      fields: keyFields,
    }),
    updateKeyBody: updateKeyBodySchema(keyFieldSchemas({ scopes, tiers, clock }), keyFields),
    keyFields,
    writes: mergeWriteHooks([extensions.writes]),
    writeKit: { keys: config.store.keys, clock },
    gracefulRotation: extensions.gracefulRotation && {
      maxGracePeriodSeconds: extensions.gracefulRotation.maxGracePeriodSeconds,
      body: rotateKeyBodySchema(extensions.gracefulRotation.maxGracePeriodSeconds),
    },
    verifyJwt,
    ...(config.session ? { session: config.session } : {}),
    trustedOrigins: new Set(http.trustedOrigins ?? []),
    accountTier: config.accountTier ?? ((claims) => claims.tier),
    usageRecorder,
    ...(retention ? { usageRetention: retention } : {}),
    organizations: extensions.organizations?.({ tiers, scopes }),
    ietfRateLimitHeaders: http.rateLimitHeaders?.ietf ?? false,
    logger,
    warnOnce: warnOnce(logger),
    reportFailure,
    failedLookups:
      config.failedLookups === false
        ? undefined
        : failedLookupLimiter(config.failedLookups ?? {}, clock),
    events,
  };

  const keys = createKeysApi(context);
  const verify = createVerify(context, mergeVerifyPhases([extensions.verify ?? {}]), {
    events,
    random,
    reportFailure,
  });
  const installed: InstalledFeatures = installFeatures(features, {
    context,
    store: config.store,
    basePath,
    keys,
    bus,
    verify,
    // Called only once the instance is built, when `installed` and `router` are set.
    describe: () => ({ instance: describeInstance(), featurePaths: installed.openapi }),
  });
  const router = createRouter(kernelEndpoints, installed.endpoints);
  const describeInstance = (): InstanceDescription => ({
    basePath,
    scopes,
    tiers,
    keyPrefixes: context.format.prefixes,
    environments: environments.names,
    environmentsConfigured: environments.configured,
    createKeyBody: context.createKeyBody,
    updateKeyBody: context.updateKeyBody,
    keyFields,
    keyUpdates: router.has("/{key_id}", "PATCH"),
    rotateKeyBody: context.gracefulRotation && {
      schema: context.gracefulRotation.body,
      maxGracePeriodSeconds: context.gracefulRotation.maxGracePeriodSeconds,
    },
    events: router.has("/{key_id}/events", "GET"),
    organizations: context.organizations !== undefined,
    maxKeysPerOwner: context.writes.beforeCreate.some((hook) =>
      hook.answers?.includes("too_many_keys"),
    ),
    ietfRateLimitHeaders: context.ietfRateLimitHeaders,
  });
  const handle = createHandle(context, keys, verify, {
    basePath,
    bodyLimit,
    featureRoutes: installed.routes,
    router,
  });
  installed.ready();

  let closed: Promise<void> | undefined;
  // The events' and usage retention's timers start with the first request rather than here: Workers refuse timers set
  // outside a request, and createKeyward often runs at a module's top level.
  let startTimers: (() => void) | undefined =
    context.events || retention
      ? () => {
          startTimers = undefined;
          context.events?.start();
          retention?.start();
        }
      : undefined;
  const keyward: Keyward = {
    ...installed.apis,
    keys,
    usage: createUsageApi(retention),
    verify: (authorization, options) => {
      startTimers?.();
      return settled(verify(authorization, options));
    },
    authenticate: (request, options = {}) => {
      startTimers?.();
      const route = options.route;
      const withMethod = route === undefined ? route : routeWithMethod(request.method, route);
      const session = config.session;
      // The options named one by one: on V8, `{ ...options, route, session }` costs microseconds
      // per request whenever it adds a property `options` lacks (docs/benchmarks.md, "HTTP").
      return settled(
        verify(request.headers.get("authorization"), {
          accept: options.accept,
          scopes: options.scopes,
          route: withMethod,
          clientIp: options.clientIp,
          cost: options.cost,
          environment: options.environment,
          resource: options.resource,
          session: session ? () => session(request) : undefined,
        }),
      );
    },
    handle,
    assertScopes(required) {
      const problem = scopeRequirementProblem(required);
      if (problem !== undefined) throw new TypeError(`Keyward: the guard's ${problem}`);
      const unknown = [...scopesNamedBy(required)].filter((scope) => !scopes.has(scope));
      if (unknown.length > 0) {
        throw new TypeError(
          `Keyward: ${unknown.map((scope) => JSON.stringify(scope)).join(", ")} ${unknown.length === 1 ? "is not a configured scope" : "are not configured scopes"}; configured: ${scopes.names.join(", ")}. Add it to \`scopes\` or fix the guard.`,
        );
      }
    },
    assertEnvironment(environment) {
      if (!environments.has(environment)) {
        throw new TypeError(
          `Keyward: ${JSON.stringify(environment)} is not a configured environment; configured: ${environments.names.join(", ")}. Add it to \`environments\` or fix the guard.`,
        );
      }
    },
    hasSession: config.session !== undefined,
    serves: (pathname) => underBasePath(pathname, basePath) !== null,
    basePath,
    // `expiresAt` leaves its check as a string, which arktype's inference cannot see: hence the cast.
    schemas: { createKey: context.createKeyBody as StandardSchemaV1<unknown, CreateKeyBody> },
    close: () => {
      closed ??= (async () => {
        await installed
          .close()
          .catch((error: unknown) => reportFailure("Keyward: a feature failed to close", error));
        retention?.close();
        await context.events?.close();
        await usageRecorder.close();
        await layeredLimits
          ?.close?.()
          .catch((error: unknown) =>
            reportFailure("Keyward: could not save credit balances on close", error),
          );
        await config.store.close?.();
      })();
      return closed;
    },
  };
  // Adapters reach it through `verifyPending` (toolkit); hidden, so it is no part of the API.
  Object.defineProperty(keyward, pendingVerify, {
    value: ((authorization, options) => {
      startTimers?.();
      return verify(authorization, options);
    }) satisfies PendingVerify,
  });
  // The features' APIs were spread in above; their types come from the list.
  return keyward as Keyward & FeatureApis<Features>;
}

/** `keyward.verify` promises its result, whether or not it was decided at once. */
function settled<T>(value: Pending<T>): Promise<T> {
  return isPromise(value) ? value : Promise.resolve(value);
}

function normaliseBasePath(path: string): string {
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new TypeError('Keyward: `basePath` must start with "/"');
  }
  return path.replace(/\/+$/, "");
}
