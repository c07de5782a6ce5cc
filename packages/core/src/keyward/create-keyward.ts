import { createKeysApi, type KeysApi } from "../api/keys-api.js";
import { createJwtVerifier } from "../auth/jwt.js";
import type { VerifyOptions, VerifyResult } from "../auth/principal.js";
import { createVerify } from "../auth/verify.js";
import { systemClock } from "../clock.js";
import { KeywardError } from "../errors/keyward-error.js";
import { createHandle } from "../http/handle.js";
import { defaultBodyLimit } from "../http/read-json-body.js";
import { createKeyFormat } from "../keys/format.js";
import { createSecretHasher } from "../keys/hash.js";
import { cryptoRandom } from "../random.js";
import { createScopeRegistry } from "../scopes/scope-registry.js";
import { createTierLadder } from "../tiers/tier-ladder.js";
import { requestMethodLabel } from "../usage/route-label.js";
import { createUsageRecorder } from "../usage/usage-recorder.js";
import { createKeyBodySchema } from "../validation/create-key-body.js";
import type { KeywardConfig } from "./config.js";
import type { KeywardContext } from "./context.js";

export interface Keyward {
  /** Key management: the same outcomes as the six HTTP endpoints, as async functions. */
  readonly keys: KeysApi;
  /**
   * The hot path: a raw `Authorization` header value in, a decision out. Never throws.
   * @example
   * const result = await keyward.verify(req.headers.authorization, {
   *   scopes: ["profile:write"],
   *   route: "PUT /profiles/:slug",
   * });
   * if (!result.ok) return result.error.toResponse(result.headers);
   */
  verify(authorization: string | null | undefined, options?: VerifyOptions): Promise<VerifyResult>;
  /** `verify` from a Fetch `Request`; a `route` without a method takes the request's. */
  authenticate(request: Request, options?: VerifyOptions): Promise<VerifyResult>;
  /** The six key-management endpoints: a Fetch `Request` in, a `Response` out. */
  handle(request: Request): Promise<Response>;
  /** The base path `handle` serves, without a trailing slash. */
  readonly basePath: string;
  /** The create-key body schema, usable by any Standard Schema consumer. */
  readonly schemas: { createKey: KeywardContext["createKeyBody"] };
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
 * const response = await keyward.handle(request); // the six endpoints
 */
export function createKeyward(config: KeywardConfig): Keyward {
  if (!config?.store?.keys || !config.store.usage || !config.store.rateLimits) {
    throw new TypeError("Keyward: `store` must provide `keys`, `usage` and `rateLimits`");
  }
  const basePath = normaliseBasePath(config.basePath ?? defaultBasePath);
  const bodyLimit = config.bodyLimit ?? defaultBodyLimit;
  if (!Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new TypeError("Keyward: `bodyLimit` must be a positive number of bytes");
  }
  const clock = config.clock ?? systemClock;
  const random = config.random ?? cryptoRandom;
  const scopes = createScopeRegistry(config.scopes);
  const tiers = createTierLadder(config.tiers);
  const onError = config.onError;
  const verifyJwt = config.jwt
    ? createJwtVerifier(config.jwt, clock)
    : async () => {
        throw new KeywardError("invalid_token", "JWT authentication is not configured");
      };
  const usageRecorder = createUsageRecorder(config.store.usage, {
    ...config.usage,
    ...(onError ? { onError: (error: unknown) => onError(error) } : {}),
  });

  const context: KeywardContext = {
    keys: config.store.keys,
    usage: config.store.usage,
    rateLimits: config.store.rateLimits,
    format: createKeyFormat({
      ...(config.keyPrefix === undefined ? {} : { prefix: config.keyPrefix }),
      random,
    }),
    hasher: createSecretHasher(config.pepper === undefined ? {} : { pepper: config.pepper }),
    scopes,
    tiers,
    clock,
    random,
    createKeyBody: createKeyBodySchema({ scopes, tiers, clock }),
    verifyJwt,
    accountTier: config.accountTier ?? ((claims) => claims.tier),
    usageRecorder,
    flushUsage: () => usageRecorder.flush(),
    ietfRateLimitHeaders: config.rateLimitHeaders?.ietf ?? false,
  };

  const keys = createKeysApi(context);
  const verify = createVerify(context);
  const handle = createHandle(context, keys, verify, {
    basePath,
    bodyLimit,
    ...(onError ? { onError } : {}),
  });

  let closed: Promise<void> | undefined;
  return {
    keys,
    verify: (authorization, options) => verify(authorization, options),
    authenticate: (request, options = {}) => {
      const route = options.route;
      const withMethod =
        route && !route.includes(" ") ? `${requestMethodLabel(request.method)} ${route}` : route;
      return verify(request.headers.get("authorization"), { ...options, route: withMethod });
    },
    handle,
    basePath,
    schemas: { createKey: context.createKeyBody },
    close: () => {
      closed ??= (async () => {
        await usageRecorder.close();
        await config.store.close?.();
      })();
      return closed;
    },
  };
}

function normaliseBasePath(path: string): string {
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new TypeError('Keyward: `basePath` must start with "/"');
  }
  return path.replace(/\/+$/, "");
}
