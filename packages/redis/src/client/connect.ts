/** Picks the driver shim for the client a host passes to `redisStore`. */
import { ioredisConnection, isIoredis } from "./ioredis.js";
import { isNodeRedis, nodeRedisConnection } from "./node-redis.js";
import type { RedisClient } from "./redis-client.js";
import type { RedisConnection } from "./redis-connection.js";

/** Recognises an ioredis `Redis`/`Cluster` or a node-redis client/cluster by its methods. */
export function redisConnection(client: RedisClient): RedisConnection {
  if (isNodeRedis(client)) return nodeRedisConnection(client);
  if (isIoredis(client)) return ioredisConnection(client);
  throw new TypeError(
    "@keyward/redis: `client` must be an ioredis Redis or Cluster, or a node-redis client (`createClient()` / `createCluster()`)",
  );
}
