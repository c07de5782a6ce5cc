/**
 * The pub/sub invalidation channel: delivery between instances, the verification cache of
 * `@keyward/core` evicting a revoked key everywhere, and honesty about gaps: a dropped or stalled
 * subscriber connection is reported as "interrupted", and "live" comes back only once the new
 * subscription is confirmed.
 */
import {
  type ChannelState,
  cachedKeyStore,
  type KeyInvalidation,
  memoryKeyStore,
} from "@keyward/core/toolkit";
import { fakeHash, storedKey } from "@keyward/testing";
import IORedis from "ioredis";
import { createClient } from "redis";
import { afterEach, describe, expect, it } from "vitest";
import { type RedisClient, redisInvalidationChannel, redisStore } from "../src/index.js";
import { localRedis, nodeRedisOptions, redisAvailable, testPrefix } from "./support/local-redis.js";
import { freePort, type RedisServer, startRedisServer } from "./support/redis-servers.js";

type Driver = "ioredis" | "node-redis";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A client of the tests' Redis, or of a private server's `port`. */
async function connect(driver: Driver, port?: number): Promise<RedisClient> {
  if (driver === "ioredis") {
    const client = new IORedis(port === undefined ? localRedis : { host: "127.0.0.1", port });
    client.on("error", () => {});
    cleanups.push(() => client.disconnect());
    return client;
  }
  const client = createClient(
    port === undefined ? nodeRedisOptions : { socket: { host: "127.0.0.1", port } },
  );
  client.on("error", () => {});
  cleanups.push(() => client.destroy());
  await client.connect();
  return client;
}

/** Resolves with the next value pushed, or rejects after `ms`. */
function inbox<T>() {
  const items: T[] = [];
  const waiting: ((item: T) => void)[] = [];
  return {
    items,
    push(item: T) {
      items.push(item);
      waiting.shift()?.(item);
    },
    async next(predicate: (item: T, index: number) => boolean, ms = 10_000): Promise<T> {
      const found = items.find(predicate);
      if (found !== undefined) return found;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`nothing arrived within ${ms} ms`)), ms);
        const check = (item: T) => {
          if (predicate(item, items.length - 1)) {
            clearTimeout(timer);
            resolve(item);
          } else waiting.push(check);
        };
        waiting.push(check);
      });
    },
  };
}

describe.skipIf(!redisAvailable).each(["ioredis", "node-redis"] as const)(
  "invalidation channel on %s",
  (driver) => {
    it("delivers an event to every instance, the publisher's own included", async () => {
      const prefix = testPrefix("channel");
      const a = redisStore({ client: await connect(driver), prefix });
      const b = redisStore({ client: await connect(driver), prefix });
      cleanups.push(
        () => a.close(),
        () => b.close(),
      );
      const seenByA = inbox<KeyInvalidation>();
      const seenByB = inbox<KeyInvalidation>();
      cleanups.push(await a.invalidation.subscribe((event) => seenByA.push(event)));
      cleanups.push(await b.invalidation.subscribe((event) => seenByB.push(event)));

      const event = { keyId: "key_1", secretHash: fakeHash() };
      await a.invalidation.publish(event);
      expect(await seenByB.next((e) => e.keyId === "key_1")).toEqual(event);
      expect(await seenByA.next((e) => e.keyId === "key_1")).toEqual(event);

      // Another prefix is another channel.
      const other = redisStore({ client: await connect(driver), prefix: testPrefix("other") });
      cleanups.push(() => other.close());
      await other.invalidation.publish({ keyId: "key_2", secretHash: fakeHash() });
      await a.invalidation.publish({ keyId: "key_3", secretHash: fakeHash() });
      await seenByB.next((e) => e.keyId === "key_3");
      expect(seenByB.items.map((e) => e.keyId)).toEqual(["key_1", "key_3"]);
    });

    it("evicts a revoked key from another instance's verification cache at once", async () => {
      const prefix = testPrefix("cache");
      const shared = memoryKeyStore(); // stands in for Postgres: one database, two instances
      const one = redisStore({ client: await connect(driver), prefix });
      const two = redisStore({ client: await connect(driver), prefix });
      cleanups.push(
        () => one.close(),
        () => two.close(),
      );
      const cacheOne = cachedKeyStore(shared, { channel: one.invalidation, ttlMs: 60_000 });
      const cacheTwo = cachedKeyStore(shared, { channel: two.invalidation, ttlMs: 60_000 });
      cleanups.push(
        () => cacheOne.close(),
        () => cacheTwo.close(),
      );
      await Promise.all([cacheOne.ready, cacheTwo.ready]);

      const key = storedKey();
      await shared.create(key);
      expect((await cacheTwo.findByHash(key.secretHash))?.revokedAt).toBeNull();
      expect(cacheTwo.size).toBe(1);

      await cacheOne.revoke(key.id, 1_000);
      await expect.poll(() => cacheTwo.size).toBe(0);
      expect((await cacheTwo.findByHash(key.secretHash))?.revokedAt).toBe(1_000);
    });

    it("stops delivering once unsubscribed", async () => {
      const store = redisStore({ client: await connect(driver), prefix: testPrefix("unsub") });
      cleanups.push(() => store.close());
      const seen = inbox<KeyInvalidation>();
      const unsubscribe = await store.invalidation.subscribe((event) => seen.push(event));
      await store.invalidation.publish({ keyId: "before", secretHash: "h" });
      await seen.next((e) => e.keyId === "before");
      await unsubscribe();
      await store.invalidation.publish({ keyId: "after", secretHash: "h" });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(seen.items.map((e) => e.keyId)).toEqual(["before"]);
    });
  },
);

describe.each(["ioredis", "node-redis"] as const)(
  "invalidation channel outages on %s",
  (driver) => {
    let server: RedisServer | undefined;
    afterEach(async () => {
      await server?.stop();
      server = undefined;
    });

    const watch = async (port: number, heartbeatIntervalMs = 5_000) => {
      const errors: unknown[] = [];
      const channel = redisInvalidationChannel({
        client: await connect(driver, port),
        heartbeatIntervalMs,
        onError: (error) => errors.push(error),
      });
      cleanups.push(() => channel.close());
      const states = inbox<ChannelState>();
      const events = inbox<KeyInvalidation>();
      cleanups.push(
        await channel.subscribe(
          (event) => events.push(event),
          (s) => states.push(s),
        ),
      );
      return { channel, states, events, errors };
    };

    it("reports a dropped connection, resubscribes, and reports live again", async () => {
      server = await startRedisServer();
      const { channel, states, events } = await watch(server.port);
      const admin = new IORedis({ host: "127.0.0.1", port: server.port });
      admin.on("error", () => {});
      cleanups.push(() => admin.disconnect());

      await admin.client("KILL", "TYPE", "pubsub");
      await states.next((s) => s === "interrupted");
      await states.next((s) => s === "live");
      await channel.publish({ keyId: "after-reconnect", secretHash: "h" });
      await events.next((e) => e.keyId === "after-reconnect");

      // A server restart: interrupted while it is down, live once it is back (which the channel
      // may see before `restart()` itself has seen the server answer).
      await server.kill();
      await states.next((_, index) => index === 2);
      await server.restart();
      await states.next((_, index) => index === 3);
      // The publishing client reconnects on its own schedule: retry until it has.
      await expect
        .poll(() =>
          channel.publish({ keyId: "after-restart", secretHash: "h" }).then(
            () => true,
            () => false,
          ),
        )
        .toBe(true);
      await events.next((e) => e.keyId === "after-restart");
      expect(states.items).toEqual(["interrupted", "live", "interrupted", "live"]);
    });

    it("notices a connection that stops answering (heartbeat)", async () => {
      server = await startRedisServer();
      const { states, errors } = await watch(server.port, 100);
      const admin = new IORedis({ host: "127.0.0.1", port: server.port });
      admin.on("error", () => {});
      cleanups.push(() => admin.disconnect());
      // Every client is paused: the subscriber's connection stays open but answers nothing.
      await admin.client("PAUSE", 2_500, "ALL");
      await states.next((s) => s === "interrupted", 5_000);
      await states.next((s) => s === "live", 10_000);
      expect(errors.length).toBeGreaterThan(0);
    });

    it("keeps trying until Redis is there, and rejects a pending subscribe on close", async () => {
      const port = await freePort();
      const client = await connect(driver === "node-redis" ? "ioredis" : driver, port).catch(
        () => undefined,
      );
      expect(client).toBeDefined();
      const channel = redisInvalidationChannel({ client: client!, onError: () => {} });
      let subscribed = false;
      const pending = channel
        .subscribe(() => {})
        .then((stop) => {
          subscribed = true;
          return stop;
        });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(subscribed).toBe(false);
      server = await startRedisServer([], port);
      const stop = await pending;
      await stop();

      const never = channel.subscribe(() => {});
      await server.kill();
      const second = redisInvalidationChannel({ client: client!, onError: () => {} });
      const waiting = second.subscribe(() => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
      await second.close();
      await expect(waiting).rejects.toThrow(/closed/);
      await channel.close();
      await never.then(
        (unsubscribe) => unsubscribe(),
        () => {},
      );
    });
  },
);
