/**
 * @keyward/redis — Keyward storage on Redis: rate limits and usage in one round trip per verified
 * request (all four algorithms as Lua, cluster-safe), optional keys, pub/sub invalidation for the
 * verification cache, and a defined behaviour when Redis fails.
 */

export { type CircuitBreakerOptions, StoreUnavailableError } from "@keyward/core/toolkit";
export type { IoredisClient, NodeRedisClient, RedisClient } from "./client/redis-client.js";
export { type RedisHoldStoreOptions, redisHoldStore } from "./holds/redis-hold-store.js";
export {
  type RedisInvalidationChannel,
  type RedisInvalidationChannelOptions,
  redisInvalidationChannel,
} from "./invalidation/redis-invalidation-channel.js";
export type { StoreErrorPolicy } from "./rate-limit/redis-rate-limit-store.js";
export type { TimeSource } from "./rate-limit/redis-steps.js";
export { type RedisStore, type RedisStoreOptions, redisStore } from "./redis-store.js";
export { RedisStoreError } from "./redis-store-error.js";
