/** The connection shim for ioredis `Redis` and `Cluster`. */
import { connectionGate, disconnectedError } from "./connection-gate.js";
import { isNoScript } from "./lua-script.js";
import type { IoredisClient, RedisClient } from "./redis-client.js";
import type { RedisConnection, Subscriber, SubscriberEvents } from "./redis-connection.js";

/** The part of an ioredis connection a subscriber uses. */
interface IoredisSubscriber {
  connect(): Promise<void>;
  subscribe(channel: string): Promise<unknown>;
  ping(): Promise<unknown>;
  disconnect(): void;
  on(event: "message", listener: (channel: string, message: string) => void): unknown;
  on(event: "error" | "close" | "end", listener: (...args: unknown[]) => void): unknown;
}

interface IoredisCluster {
  isCluster: true;
  nodes(role?: "all" | "master" | "slave"): { duplicate(override: object): unknown }[];
}

/**
 * The subscriber reconnects under our control, not ioredis's: on any loss the channel reports it,
 * drops the connection and opens a new one, so a resubscription is never silent.
 */
const subscriberOverrides = {
  lazyConnect: true,
  retryStrategy: () => null,
  autoResubscribe: false,
  autoResendUnfulfilledCommands: false,
  enableOfflineQueue: true,
  maxRetriesPerRequest: null,
};

export function isIoredis(client: RedisClient): client is IoredisClient {
  return typeof (client as Partial<IoredisClient>).evalsha === "function";
}

export function ioredisConnection(client: IoredisClient): RedisConnection {
  const cluster = (client as Partial<IoredisCluster>).isCluster === true;
  const connected = connectionGate(() => {
    const status = (client as { status?: string }).status;
    return status === undefined ? undefined : status === "ready";
  });

  return {
    cluster,

    run(script, keys, args) {
      if (!connected()) return Promise.reject(disconnectedError());
      return client.evalsha(script.sha, keys.length, ...keys, ...args).catch((error: unknown) => {
        if (!isNoScript(error)) throw error;
        return client.eval(script.source, keys.length, ...keys, ...args);
      });
    },

    publish: (channel, message) => client.publish(channel, message),

    openSubscriber(channel, events) {
      let base: { duplicate(override: object): unknown } = client;
      if (cluster) {
        // PUBLISH reaches every node of a cluster, so one plain connection to any node will do.
        const nodes = (client as unknown as IoredisCluster).nodes("master");
        const node = nodes[Math.floor(Math.random() * nodes.length)];
        if (!node)
          return failedSubscriber(new Error("The ioredis Cluster has no connected node yet"));
        base = node;
      }
      return subscribe(base.duplicate(subscriberOverrides) as IoredisSubscriber, channel, events);
    },
  };
}

function subscribe(
  connection: IoredisSubscriber,
  channel: string,
  events: SubscriberEvents,
): Subscriber {
  let closed = false;
  const lost = () => {
    if (closed) return;
    closed = true;
    connection.disconnect();
    events.onLost();
  };
  // Errors surface as `close`; a listener must exist so ioredis does not print them as unhandled.
  connection.on("error", () => {});
  connection.on("close", lost);
  connection.on("end", lost);
  connection.on("message", (from, message) => {
    if (from === channel && !closed) events.onMessage(message);
  });
  const ready = connection.connect().then(async () => {
    await connection.subscribe(channel);
  });
  return {
    ready,
    ping: () => connection.ping(),
    close() {
      closed = true;
      connection.disconnect();
    },
  };
}

function failedSubscriber(error: Error): Subscriber {
  return { ready: Promise.reject(error), ping: () => Promise.reject(error), close() {} };
}
