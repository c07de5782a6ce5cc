import type { StandardSchemaV1 } from "@standard-schema/spec";
import { createKeysApi } from "../api/keys-api.js";
import { createUsageApi } from "../api/usage-api.js";
import { withRequestParts } from "../auth/forwarded-options.js";
import {
  isPromise,
  type Pending,
  type PendingVerify,
  pendingVerify,
} from "../auth/pending-verify.js";
import { createVerify } from "../auth/verify.js";
import { mergeVerifyPhases } from "../auth/verify-phases.js";
import { eventTypesOf } from "../event-model/event-types.js";
import type { FeatureApis, KeywardFeature } from "../feature-interface/feature.js";
import {
  checkFeatures,
  type InstalledFeatures,
  installFeatures,
} from "../feature-interface/install-features.js";
import { mergeExtensions } from "../feature-interface/kernel-extensions.js";
import type { InstanceDescription } from "../feature-interface/openapi-contribution.js";
import { checkedUsageSections, type UsageSection } from "../feature-interface/usage-section.js";
import { createHandle, underBasePath } from "../http/handle.js";
import { defaultBodyLimit } from "../http/read-json-body.js";
import { createRouter } from "../http/router.js";
import { kernelEndpoints } from "../http/routes/index.js";
import { checkedKeyFields } from "../keys/key-field.js";
import { scopeRequirementProblem, scopesNamedBy } from "../scopes/scope-requirement.js";
import { routeWithMethod } from "../usage/route-label.js";
import type { CreateKeyBody } from "../validation/create-key-body.js";
import { checkConfig } from "./check-config.js";
import type { KeywardConfig } from "./config.js";
import { featureKernelOf } from "./feature-kernel-of.js";
import { instanceContext } from "./instance-context.js";
import type { Keyward } from "./keyward.js";

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
export type { Keyward } from "./keyward.js";

export function createKeyward<
  const Features extends readonly KeywardFeature<string, unknown>[] = [],
>(config: KeywardConfig<Features>): Keyward & FeatureApis<Features> {
  checkConfig(config);
  checkFeatures(config.features, config.store);
  const features = config.features ?? [];
  const extensions = mergeExtensions(features);
  const keyFields = checkedKeyFields(extensions.fields ?? []);
  const eventTypes = eventTypesOf(features);
  const http = config.http ?? {};
  const basePath = normaliseBasePath(http.basePath ?? defaultBasePath);
  const bodyLimit = http.bodyLimit ?? defaultBodyLimit;
  if (!Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new TypeError("Keyward: `http.bodyLimit` must be a positive number of bytes");
  }
  const { context, bus, retention } = instanceContext(config, extensions, keyFields);
  const { scopes, tiers, environments, reportFailure, layeredLimits, usageRecorder } = context;

  // Set once the features are installed: the sections they add to the usage report.
  let usageSections: readonly UsageSection[] = [];
  const keys = createKeysApi(context, { usageSections: () => usageSections });
  const verify = createVerify(context, mergeVerifyPhases([extensions.verify ?? {}]), {
    events: context.events,
    random: context.random,
    reportFailure,
  });
  const installed: InstalledFeatures = installFeatures(
    features,
    featureKernelOf(context, {
      store: config.store,
      basePath,
      keys,
      bus,
      verify,
      eventTypes,
      // Called only once the instance is built, when `installed` and `router` are set.
      describe: () => ({ instance: describeInstance(), featurePaths: installed.openapi }),
    }),
  );
  usageSections = checkedUsageSections(installed.usage, keyFields);
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
    usageSections,
    keyUpdates: router.has("/{key_id}", "PATCH"),
    rotateKeyBody: context.gracefulRotation && {
      schema: context.gracefulRotation.body,
      maxGracePeriodSeconds: context.gracefulRotation.maxGracePeriodSeconds,
    },
    events: router.has("/{key_id}/events", "GET"),
    eventTypes,
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
      // Every option given, a feature's (`audience`…) included, without V8's slow spread.
      return settled(
        verify(
          request.headers.get("authorization"),
          withRequestParts(options, withMethod, session ? () => session(request) : undefined),
        ),
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
          `Keyward: ${JSON.stringify(environment)} is not a configured environment; configured: ${environments.names.join(", ")}. Add it to \`keys.environments\` or fix the guard.`,
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
