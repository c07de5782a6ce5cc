/**
 * The kernel's context, built once from the config and the features' extensions: the stores,
 * clock and randomness, logging and failure reporting, the key format, the body schemas, the
 * limiters and usage, the event bus and journal. Everything a request needs is resolved here, so
 * nothing is looked up per request.
 */
import { failedLookupLimiter } from "../auth/failed-lookup-limiter.js";
import { createJwtVerifier } from "../auth/jwt.js";
import { type EventBus, eventBus } from "../bus/event-bus.js";
import { systemClock } from "../clock.js";
import { KeywardError } from "../errors/keyward-error.js";
import type { KernelExtensions } from "../feature-interface/kernel-extensions.js";
import { createSecretHasher } from "../keys/hash.js";
import type { KeyField } from "../keys/key-field.js";
import { maxRotationGrace, mergeWriteHooks } from "../keys/write-hooks.js";
import { layeredLimiter } from "../limits/layered-limiter.js";
import { warnOnce } from "../logging/warn-once.js";
import { cryptoRandom } from "../random.js";
import { createScopeRegistry } from "../scopes/scope-registry.js";
import { attachStoreLogger } from "../storage/attach-store-logger.js";
import { accountTierSync } from "../tiers/account-tier-sync.js";
import { createTierLadder } from "../tiers/tier-ladder.js";
import type { UsageRetention } from "../usage/usage-retention.js";
import { createKeyBodySchema, keyFieldSchemas } from "../validation/create-key-body.js";
import { rotateKeyBodySchema } from "../validation/rotate-key-body.js";
import { updateKeyBodySchema } from "../validation/update-key-body.js";
import { warnAboutConfig } from "./check-config.js";
import type { KeywardConfig } from "./config.js";
import type { KeywardContext } from "./context.js";
import { instanceKeyFormat } from "./instance-key-format.js";
import { instanceLogging } from "./instance-logging.js";
import { instanceUsage } from "./instance-usage.js";

export interface InstanceParts {
  context: KeywardContext;
  bus: EventBus;
  /** With `usage.retainDays`: the background pruning of daily usage, started on first use. */
  retention: UsageRetention | undefined;
}

/** @param keyFields the listed features' key fields, checked (`checkedKeyFields`) */
export function instanceContext(
  config: KeywardConfig,
  extensions: KernelExtensions,
  keyFields: readonly KeyField[],
): InstanceParts {
  const clock = config.clock ?? systemClock;
  const random = cryptoRandom;
  const scopes = createScopeRegistry(config.scopes);
  const tiers = createTierLadder(config.tiers);
  const { logger, reportFailure } = instanceLogging(config, clock);
  const layeredLimits = layeredLimiter(config.store.rateLimits, config.store.allowances, {
    onCreditSaveError: (error) =>
      reportFailure("Keyward: could not save credit balances (kept for the next save)", error),
  });
  if (tiers.layered && !layeredLimits) {
    throw new TypeError(
      "Keyward: a tier has `ownerRateLimit` or `quota`, but the store's rate limits cannot apply layered limits (`consumeLayers`). Use memoryStore(), redisStore() or combineStores(postgresStore(...), memoryStore()).",
    );
  }
  warnAboutConfig(config, logger);
  // The store's background failures (dropped connections, lost invalidations) join the rest.
  attachStoreLogger(config.store, reportFailure);
  const verifyJwt = config.jwt
    ? createJwtVerifier(config.jwt, clock)
    : async () => {
        throw new KeywardError("invalid_token", "JWT authentication is not configured");
      };
  const { environments, format } = instanceKeyFormat(config, random);
  const { usageRecorder, retention } = instanceUsage(config, clock, reportFailure);

  const bus = eventBus(reportFailure);
  // The journal's feature (`events()`) `requires` a store that writes events.
  const events =
    extensions.journal && config.store.events
      ? extensions.journal({
          log: config.store.events,
          fields: keyFields,
          bus,
          keys: config.store.keys,
          clock,
          random,
          reportFailure,
        })
      : undefined;
  const writes = mergeWriteHooks([extensions.writes]);
  const maxGrace = maxRotationGrace(writes.beforeRotate);
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
      organizations: extensions.access !== undefined,
      environments: environments.configured ? environments.names : undefined,
      fields: keyFields,
    }),
    updateKeyBody: updateKeyBodySchema(keyFieldSchemas({ scopes, tiers, clock }), keyFields),
    keyFields,
    writes,
    writeKit: { keys: config.store.keys, clock },
    gracefulRotation:
      maxGrace === undefined
        ? undefined
        : { maxGracePeriodSeconds: maxGrace, body: rotateKeyBodySchema(maxGrace) },
    verifyJwt,
    ...(config.session ? { session: config.session } : {}),
    trustedOrigins: new Set(config.http?.trustedOrigins ?? []),
    accountTier: config.accountTier ?? ((claims) => claims.tier),
    usageRecorder,
    ...(retention ? { usageRetention: retention } : {}),
    organizations: extensions.access?.({ tiers, scopes }),
    ietfRateLimitHeaders: config.http?.rateLimitHeaders?.ietf ?? false,
    logger,
    warnOnce: warnOnce(logger),
    reportFailure,
    failedLookups:
      config.failedLookups === false
        ? undefined
        : failedLookupLimiter(config.failedLookups ?? {}, clock),
    events,
  };
  return { context, bus, retention };
}
