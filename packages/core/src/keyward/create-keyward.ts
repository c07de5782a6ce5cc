import { createKeysApi, type KeysApi } from "../api/keys-api.js";
import { systemClock } from "../clock.js";
import { createKeyFormat } from "../keys/format.js";
import { createSecretHasher } from "../keys/hash.js";
import { cryptoRandom } from "../random.js";
import { createScopeRegistry } from "../scopes/scope-registry.js";
import { createTierLadder } from "../tiers/tier-ladder.js";
import { createKeyBodySchema } from "../validation/create-key-body.js";
import type { KeywardConfig } from "./config.js";
import type { KeywardContext } from "./context.js";

export interface Keyward {
  /** Key management: the same outcomes as the six HTTP endpoints, as async functions. */
  readonly keys: KeysApi;
  /** The create-key body schema, usable by any Standard Schema consumer. */
  readonly schemas: { createKey: KeywardContext["createKeyBody"] };
  /** Flushes buffered usage and releases the store's connections, timers and subscriptions. */
  close(): Promise<void>;
}

/**
 * Creates a Keyward instance. Configuration is checked here, once: a bad scope name, an empty tier
 * list or a malformed rate limit throws a `TypeError` at start rather than on a request.
 *
 * @example
 * const keyward = createKeyward({
 *   store: memoryStore(),
 *   scopes: { "profile:read": "Read profiles", "profile:write": "Edit profiles" },
 *   tiers: { free: { rateLimit: { limit: 60, window: "1m" } }, pro: { rateLimit: { limit: 600, window: "1m" } } },
 * });
 * const { key } = await keyward.keys.create({
 *   ownerId: "alice", accountTier: "pro", name: "CI", scopes: ["profile:read"], tier: "free",
 * });
 */
export function createKeyward(config: KeywardConfig): Keyward {
  if (!config?.store?.keys || !config.store.usage || !config.store.rateLimits) {
    throw new TypeError("Keyward: `store` must provide `keys`, `usage` and `rateLimits`");
  }
  const clock = config.clock ?? systemClock;
  const scopes = createScopeRegistry(config.scopes);
  const tiers = createTierLadder(config.tiers);
  const context: KeywardContext = {
    keys: config.store.keys,
    usage: config.store.usage,
    rateLimits: config.store.rateLimits,
    format: createKeyFormat({
      ...(config.keyPrefix === undefined ? {} : { prefix: config.keyPrefix }),
      random: config.random ?? cryptoRandom,
    }),
    hasher: createSecretHasher(config.pepper === undefined ? {} : { pepper: config.pepper }),
    scopes,
    tiers,
    clock,
    random: config.random ?? cryptoRandom,
    createKeyBody: createKeyBodySchema({ scopes, tiers, clock }),
    flushUsage: async () => {},
  };
  let closed: Promise<void> | undefined;
  return {
    keys: createKeysApi(context),
    schemas: { createKey: context.createKeyBody },
    close: () => {
      closed ??= (async () => {
        await context.flushUsage();
        await config.store.close?.();
      })();
      return closed;
    },
  };
}
