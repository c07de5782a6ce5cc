/** The connection shim for node-redis (`redis` 4 and 5): `createClient()` and `createCluster()`. */
import { connectionGate, disconnectedError } from "./connection-gate.js";
import { isNoScript } from "./lua-script.js";
import type { NodeRedisClient, RedisClient } from "./redis-client.js";
import type { RedisConnection, Subscriber, SubscriberEvents } from "./redis-connection.js";

interface NodeRedisSubscriber {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  ping(): Promise<unknown>;
  destroy(): void;
  on(event: "error" | "end", listener: (...args: unknown[]) => void): unknown;
}

export function isNodeRedis(client: RedisClient): client is NodeRedisClient {
  return typeof (client as Partial<NodeRedisClient>).evalSha === "function";
}

export function nodeRedisConnection(client: NodeRedisClient): RedisConnection {
  // A cluster routes each script by its first key; a subscriber needs a single-node client.
  const isCluster = Array.isArray((client as { masters?: unknown }).masters);
  const connected = connectionGate(() => (client as { isReady?: boolean }).isReady);

  return {
    cluster: isCluster,

    run(script, keys, args) {
      if (!connected()) return Promise.reject(disconnectedError());
      const options = { keys: keys as string[], arguments: args as string[] };
      return client.evalSha(script.sha, options).catch((error: unknown) => {
        if (!isNoScript(error)) throw error;
        return client.eval(script.source, options);
      });
    },

    publish: (channel, message) => client.publish(channel, message),

    openSubscriber(channel, events) {
      if (isCluster) {
        const error = new TypeError(
          "@keyward/redis: the invalidation channel needs a single-node node-redis client; pass `redisInvalidationChannel({ client })` a `createClient()` for any one of its nodes",
        );
        return { ready: Promise.reject(error), ping: () => Promise.reject(error), close() {} };
      }
      const options = (client as { options?: { socket?: object } }).options;
      const connection = client.duplicate({
        // Reconnection is the channel's job: it must report the gap, not paper over it.
        socket: { ...options?.socket, reconnectStrategy: false },
      }) as NodeRedisSubscriber;
      return subscribe(connection, channel, events);
    },
  };
}

function subscribe(
  connection: NodeRedisSubscriber,
  channel: string,
  events: SubscriberEvents,
): Subscriber {
  let closed = false;
  const close = () => {
    closed = true;
    try {
      connection.destroy();
    } catch {
      // Already closed.
    }
  };
  const lost = () => {
    if (closed) return;
    close();
    events.onLost();
  };
  connection.on("error", lost);
  connection.on("end", lost);
  const ready = connection.connect().then(async () => {
    await connection.subscribe(channel, (message) => {
      if (!closed) events.onMessage(message);
    });
  });
  return { ready, ping: () => connection.ping(), close };
}
