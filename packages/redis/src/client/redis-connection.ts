/**
 * The small surface the store needs from a Redis client, whichever client it is: run a script
 * (`EVALSHA`, falling back to `EVAL`), publish, and open a dedicated subscriber connection. Every
 * data operation is a Lua script, so this shim is all there is per driver, and it works the same on
 * a single server and on a cluster (each script names its keys, and the client routes by them).
 */
import { ioredisConnection, isIoredis } from "./ioredis.js";
import type { LuaScript } from "./lua-script.js";
import { isNodeRedis, nodeRedisConnection } from "./node-redis.js";
import type { RedisClient } from "./redis-client.js";

/** Events of one subscriber connection. */
export interface SubscriberEvents {
  onMessage(message: string): void;
  /** The connection is gone (closed, reset, failed): messages may have been missed from here on. */
  onLost(): void;
}

/** One dedicated connection in subscriber mode, listening to one channel. */
export interface Subscriber {
  /** Resolves once the server has confirmed the subscription; rejects if that failed. */
  readonly ready: Promise<void>;
  /** A round trip on this very connection, to check it still delivers. */
  ping(): Promise<unknown>;
  /** Closes the connection; `onLost` is not called for it. */
  close(): void;
}

export interface RedisConnection {
  readonly driver: "ioredis" | "node-redis";
  /** A Redis Cluster: a script may only touch keys of one slot. */
  readonly cluster: boolean;
  /** Runs a script by SHA, sending its source when the server answers `NOSCRIPT`. */
  run(script: LuaScript, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  /** A new connection of its own (the client's settings, no automatic reconnection). */
  openSubscriber(channel: string, events: SubscriberEvents): Subscriber;
}

/** Recognises an ioredis `Redis`/`Cluster` or a node-redis client/cluster by its methods. */
export function redisConnection(client: RedisClient): RedisConnection {
  if (isNodeRedis(client)) return nodeRedisConnection(client);
  if (isIoredis(client)) return ioredisConnection(client);
  throw new TypeError(
    "@keyward/redis: `client` must be an ioredis Redis or Cluster, or a node-redis client (`createClient()` / `createCluster()`)",
  );
}
