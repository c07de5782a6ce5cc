/**
 * The client's own 'error' events (a lost connection, each failed reconnection attempt) reach the
 * store's `onError` (without one, the logger of the Keyward using the store), once per outage, and
 * never the console as ioredis's "Unhandled error event" (nor a thrown 'error' event, which ends
 * the process on node-redis). A private redis-server is killed and restarted; the client is given
 * to the store with no listener of its own.
 */
import { combineStores, createKeyward, type KeywardLogger, memoryStore } from "@keyward/core";
import IORedis from "ioredis";
import { createClient } from "redis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type RedisClient, redisStore } from "../src/index.js";
import { type RedisServer, startRedisServer } from "./support/redis-servers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

interface Client {
  client: unknown;
  listenerCount(event: string): number;
  /** How many times the client has tried to reconnect: each failed attempt emits 'error'. */
  reconnectionAttempts(): number;
  isReady(): boolean;
  close(): Promise<void>;
}

// A fast retry, so that an outage of a second gives several failed reconnection attempts.
const drivers: Record<"ioredis" | "node-redis", (port: number) => Promise<Client>> = {
  async ioredis(port) {
    let attempts = 0;
    const client = new IORedis({
      host: "127.0.0.1",
      port,
      retryStrategy: () => {
        attempts += 1;
        return 50;
      },
    });
    await new Promise((resolve) => client.once("ready", resolve));
    return {
      client,
      listenerCount: (event) => client.listenerCount(event),
      reconnectionAttempts: () => attempts,
      isReady: () => client.status === "ready",
      close: async () => client.disconnect(),
    };
  },
  async "node-redis"(port) {
    let attempts = 0;
    const client = createClient({
      socket: {
        host: "127.0.0.1",
        port,
        reconnectStrategy: () => {
          attempts += 1;
          return 50;
        },
      },
    });
    await client.connect();
    return {
      client,
      listenerCount: (event) => client.listenerCount(event),
      reconnectionAttempts: () => attempts,
      isReady: () => client.isReady,
      close: async () => client.destroy(),
    };
  },
};

describe("redisStore and the client's connection errors", () => {
  let server: RedisServer | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await server?.stop();
    server = undefined;
  });

  for (const driver of ["ioredis", "node-redis"] as const) {
    it(`${driver}: reports the first error of each outage to onError, prints nothing, and stops listening on close`, async () => {
      server = await startRedisServer();
      const connection = await drivers[driver](server.port);
      cleanups.push(connection.close);
      const printed = vi.spyOn(console, "error");
      const reported: unknown[] = [];
      const before = connection.listenerCount("error");
      const store = redisStore({
        client: connection.client as RedisClient,
        onError: (error) => reported.push(error),
      });
      expect(connection.listenerCount("error")).toBe(before + 1);

      for (const outage of [1, 2]) {
        const attemptsBefore = connection.reconnectionAttempts();
        await server.kill();
        // Several failed reconnection attempts: one outage, many 'error' events.
        await waitFor(
          () => connection.reconnectionAttempts() >= attemptsBefore + 3,
          "reconnection attempts",
        );
        expect(reported).toHaveLength(outage);
        expect(reported[outage - 1]).toBeInstanceOf(Error);
        await server.restart();
        await waitFor(connection.isReady, "the client to reconnect");
      }
      expect(printed).not.toHaveBeenCalled();

      await store.close();
      expect(connection.listenerCount("error")).toBe(before);
    }, 30_000);
  }

  it("without onError, reports the outage to the Keyward logger using the store, once, not the console", async () => {
    server = await startRedisServer();
    const connection = await drivers.ioredis(server.port);
    cleanups.push(connection.close);
    const warned = vi.spyOn(console, "warn");
    const printed = vi.spyOn(console, "error");
    const logged: { message: string; cause: unknown }[] = [];
    const logger: KeywardLogger = {
      error: (message, cause) => logged.push({ message, cause }),
      warn() {},
    };
    const hooked: unknown[] = [];
    const store = redisStore({ client: connection.client as RedisClient });
    const keyward = createKeyward({
      store: combineStores(store, memoryStore()),
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 5, window: "1m" } } },
      logger,
      onError: (error) => hooked.push(error),
    });
    cleanups.push(() => keyward.close());

    const attemptsBefore = connection.reconnectionAttempts();
    await server.kill();
    await waitFor(
      () => connection.reconnectionAttempts() >= attemptsBefore + 3,
      "reconnection attempts",
    );
    expect(logged).toHaveLength(1);
    expect(logged[0]!.message).toBe("a Redis call failed");
    expect(logged[0]!.cause).toBeInstanceOf(Error);
    expect(hooked).toEqual([logged[0]!.cause]);
    expect(warned).not.toHaveBeenCalled();
    expect(printed).not.toHaveBeenCalled();
    await server.restart();
    await waitFor(connection.isReady, "the client to reconnect");
  }, 30_000);
});
