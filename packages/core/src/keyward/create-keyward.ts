import type { StandardSchemaV1 } from "@standard-schema/spec";
import { createEventsApi, type EventsApi } from "../api/events-api.js";
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
import { systemClock } from "../clock.js";
import { createEnvironments } from "../environments/environments.js";
import { KeywardError } from "../errors/keyward-error.js";
import { eventsRuntime } from "../events/events-runtime.js";
import type { FeatureApis, KeywardFeature } from "../features/feature.js";
import { checkFeatures, installFeatures } from "../features/install-features.js";
import { createHandle, underBasePath } from "../http/handle.js";
import { defaultBodyLimit } from "../http/read-json-body.js";
import { createKeyFormat, DEFAULT_KEY_PREFIX, type KeyFormat } from "../keys/format.js";
import { createSecretHasher } from "../keys/hash.js";
import { layeredLimiter } from "../limits/layered-limiter.js";
import { consoleLogger, silentLogger } from "../logging/logger.js";
import { repeatFilter } from "../logging/repeat-filter.js";
import { warnOnce } from "../logging/warn-once.js";
import { buildOpenApiDocument } from "../openapi/build-document.js";
import type { OpenApiDocument } from "../openapi/document-types.js";
import { organizationAccess } from "../organizations/organization-access.js";
import { cryptoRandom } from "../random.js";
import { createScopeRegistry } from "../scopes/scope-registry.js";
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
  /** Key management: the same outcomes as the six HTTP endpoints, as async functions. */
  readonly keys: KeysApi;
  /** The audit log, with `events` configured (otherwise its calls throw a `TypeError`). */
  readonly events: EventsApi;
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
   * Throws a `TypeError` naming every scope in `scopes` that is not configured. Guards call it
   * when they are created, so a mistyped scope fails at start instead of refusing every key.
   * @example
   * keyward.assertScopes(["profile:read"]); // fine
   * keyward.assertScopes(["profile:raed"]); // TypeError: … not a configured scope …
   */
  assertScopes(scopes: readonly string[]): void;
  /**
   * Throws a `TypeError` unless `environment` is a configured environment (`live` without
   * `environments`). Guards given an `environment` call it when they are created.
   */
  assertEnvironment(environment: string): void;
  /** Whether a `session` hook is configured (adapters then pass requests without a bearer token). */
  readonly hasSession: boolean;
  /** The six key-management endpoints: a Fetch `Request` in, a `Response` out. */
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
  /**
   * The OpenAPI 3.1 document of the endpoints as configured (base path, scopes and tiers as
   * enums, error bodies, rate-limit headers, security schemes), plus the host routes listed in
   * `openapi.routes`. Generated from the same schemas that validate requests. A fresh copy each
   * call. See docs/openapi.md.
   * @example
   * writeFileSync("openapi.json", JSON.stringify(keyward.openapi(), null, 2));
   */
  openapi(): OpenApiDocument;
  /** Flushes buffered usage and releases the store's connections, timers and subscriptions. */
  close(): Promise<void>;
}

const defaultBasePath = "/api/v1/api-keys";
const defaultMaxKeysPerOwner = 100;

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
 * const response = await keyward.handle(request); // the six endpoints
 */
export function createKeyward<
  const Features extends readonly KeywardFeature<string, unknown>[] = [],
>(config: KeywardConfig<Features>): Keyward & FeatureApis<Features> {
  checkConfig(config);
  checkFeatures(config.features, config.store);
  const basePath = normaliseBasePath(config.basePath ?? defaultBasePath);
  const bodyLimit = config.bodyLimit ?? defaultBodyLimit;
  if (!Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new TypeError("Keyward: `bodyLimit` must be a positive number of bytes");
  }
  const clock = config.clock ?? systemClock;
  const random = config.random ?? cryptoRandom;
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
  const logger = config.logger === false ? silentLogger : (config.logger ?? consoleLogger);
  warnAboutConfig(config, logger);
  const repeats = repeatFilter();
  const reportFailure = (message: string, cause: unknown, request?: Request) => {
    // A failing logger or hook must not turn a handled failure into a crash.
    try {
      const suffix = repeats.admit(message, cause, clock.now());
      if (suffix !== null) logger.error(`${message}${suffix}`, cause);
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
  const environments = createEnvironments(
    config.environments,
    config.keyPrefix ?? DEFAULT_KEY_PREFIX,
  );
  let format: KeyFormat;
  try {
    format = createKeyFormat({ prefixes: environments.prefixes, random });
  } catch (error) {
    // The format names the prefix; the option it came from is what the host has to fix.
    const option = config.environments === undefined ? "keyPrefix" : "environments";
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

  const context: KeywardContext = {
    keys: config.store.keys,
    usage: config.store.usage,
    rateLimits: config.store.rateLimits,
    layeredLimits,
    format,
    environments,
    hasher: createSecretHasher(config.pepper === undefined ? {} : { pepper: config.pepper }),
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
      organizations: config.organizations !== undefined,
      environments: environments.configured ? environments.names : undefined,
    }),
    updateKeyBody: updateKeyBodySchema(keyFieldSchemas({ scopes, tiers, clock })),
    keyUpdates: config.keyUpdates === true,
    gracefulRotation: gracefulRotation(config.gracefulRotation),
    maxKeysPerOwner:
      config.maxKeysPerOwner === false
        ? undefined
        : (config.maxKeysPerOwner ?? defaultMaxKeysPerOwner),
    verifyJwt,
    ...(config.session ? { session: config.session } : {}),
    trustedOrigins: new Set(config.trustedOrigins ?? []),
    accountTier: config.accountTier ?? ((claims) => claims.tier),
    usageRecorder,
    ...(retention ? { usageRetention: retention } : {}),
    organizations: config.organizations && organizationAccess(config.organizations, tiers),
    ietfRateLimitHeaders: config.rateLimitHeaders?.ietf ?? false,
    logger,
    warnOnce: warnOnce(logger),
    reportFailure,
    failedLookups:
      config.failedLookups === false
        ? undefined
        : failedLookupLimiter(config.failedLookups ?? {}, clock),
    events:
      config.events && config.store.keys.events
        ? eventsRuntime(config.events, config.store.keys.events, {
            keys: config.store.keys,
            clock,
            random,
            reportFailure,
          })
        : undefined,
  };

  const keys = createKeysApi(context);
  const events = createEventsApi(context, keys);
  const verify = createVerify(context);
  const features = installFeatures(config.features ?? [], { context, basePath });
  const openapiOptions = config.openapi ?? {};
  // Built on first use and kept: the configuration it describes cannot change.
  let openapiJson: string | undefined;
  const documentJson = () => {
    openapiJson ??= JSON.stringify(
      buildOpenApiDocument(
        {
          basePath,
          scopes,
          tiers,
          keyPrefixes: context.format.prefixes,
          environments: environments.names,
          environmentsConfigured: environments.configured,
          createKeyBody: context.createKeyBody,
          updateKeyBody: context.updateKeyBody,
          keyUpdates: context.keyUpdates,
          rotateKeyBody: context.gracefulRotation && {
            schema: context.gracefulRotation.body,
            maxGracePeriodSeconds: context.gracefulRotation.maxGracePeriodSeconds,
          },
          events: context.events !== undefined,
          organizations: context.organizations !== undefined,
          maxKeysPerOwner: context.maxKeysPerOwner !== undefined,
          ietfRateLimitHeaders: context.ietfRateLimitHeaders,
          options: openapiOptions,
        },
        features.openapi,
      ),
    );
    return openapiJson;
  };
  if (openapiOptions.serve) documentJson(); // a bad `openapi.routes` entry throws at start
  const handle = createHandle(context, keys, events, verify, {
    basePath,
    bodyLimit,
    ...(openapiOptions.serve ? { openapiDocument: documentJson } : {}),
    featureRoutes: features.routes,
  });

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
    ...features.apis,
    keys,
    events,
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
          session: session ? () => session(request) : undefined,
        }),
      );
    },
    handle,
    assertScopes(required) {
      const unknown = [...required].filter((scope) => !scopes.has(scope));
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
    openapi: () => JSON.parse(documentJson()) as OpenApiDocument,
    serves: (pathname) => underBasePath(pathname, basePath) !== null,
    basePath,
    // `expiresAt` leaves its check as a string, which arktype's inference cannot see: hence the cast.
    schemas: { createKey: context.createKeyBody as StandardSchemaV1<unknown, CreateKeyBody> },
    close: () => {
      closed ??= (async () => {
        await features
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

/** Seven days: long enough for a weekly deploy train to pick up a new secret. */
const defaultMaxGracePeriodSeconds = 7 * 24 * 60 * 60;

function gracefulRotation(option: KeywardConfig["gracefulRotation"]) {
  if (option === undefined || option === false) return undefined;
  const max =
    option === true
      ? defaultMaxGracePeriodSeconds
      : (option.maxGracePeriodSeconds ?? defaultMaxGracePeriodSeconds);
  return { maxGracePeriodSeconds: max, body: rotateKeyBodySchema(max) };
}
