/**
 * The clients `redisStore` accepts, described by the few methods it calls, so that neither driver
 * is imported (both are optional peer dependencies) and either one's instances fit.
 */

/** An ioredis `Redis` or `Cluster` (ioredis 5). */
export interface IoredisClient {
  evalsha(sha: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: `Redis` and `Cluster` take different arguments.
  duplicate(...args: any[]): unknown;
}

/** A node-redis client from `createClient()` (redis 5, also 4), or a cluster from `createCluster()`. */
export interface NodeRedisClient {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: the override options are the driver's own type.
  duplicate(...args: any[]): unknown;
}

export type RedisClient = IoredisClient | NodeRedisClient;
