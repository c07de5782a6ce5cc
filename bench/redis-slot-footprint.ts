/**
 * What the `{keys}` slot holds per API key on Redis, for the Cluster ceiling in docs/redis.md:
 * every key record, its indexes, the event log and the webhook outbox share one hash tag, so on a
 * cluster they live on one shard, and that shard's memory bounds how many keys and events a
 * deployment can keep. Creates `FOOTPRINT_KEYS` keys (default 20,000) through Keyward with events
 * listed (each writes `key.created`), then rotates each once (`key.rotated`), on a Redis server of
 * its own (no other data), and reads `used_memory` after each step: bytes per key with its first
 * event, and per further event.
 *
 *   cd bench && node --conditions=@keyward/source --import tsx redis-slot-footprint.ts
 */
import { spawn } from "node:child_process";
import { combineStores, createKeyward, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";

const keyCount = Number(process.env.FOOTPRINT_KEYS ?? 20_000);
const port = 6390 + Math.floor(Math.random() * 100);
const server = spawn("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no"], {
  stdio: "ignore",
});
const client = new IORedis({ port, lazyConnect: true });
for (let attempt = 0; ; attempt++) {
  try {
    await client.connect();
    break;
  } catch (error) {
    if (attempt > 50) throw error;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const usedMemory = async () => {
  const info = await client.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)![1]);
};

try {
  const keyward = createKeyward({
    store: combineStores(redisStore({ client, keys: true }), memoryStore()),
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
    jwt: false,
    logger: false,
    features: [events({ pruneIntervalMs: false, expiring: false })],
  });
  const empty = await usedMemory();
  const ids: string[] = [];
  const owners = 100;
  for (let i = 0; i < keyCount; i++) {
    const key = await keyward.keys.create({
      ownerId: `owner-${i % owners}`,
      accountTier: "free",
      name: `key ${i}`,
      scopes: ["profile:read"],
      tier: "free",
    });
    ids.push(key.id);
  }
  const created = await usedMemory();
  for (let i = 0; i < keyCount; i++) await keyward.keys.rotate(`owner-${i % owners}`, ids[i]!);
  const rotated = await usedMemory();
  const keysInSlot = (await client.keys("*{keys}*")).length;
  const perKey = (created - empty) / keyCount;
  const perEvent = (rotated - created) / keyCount;
  const gib = 1024 ** 3;
  console.log(
    JSON.stringify(
      {
        keys: keyCount,
        owners,
        redisKeysUnderTheKeysTag: keysInSlot,
        bytesPerKeyWithItsCreatedEvent: Math.round(perKey),
        bytesPerFurtherEvent: Math.round(perEvent),
        keysPerGiBWithTenEventsEach: Math.floor(gib / (perKey + 9 * perEvent)),
      },
      null,
      2,
    ),
  );
  await keyward.close();
} finally {
  await client.quit().catch(() => {});
  server.kill();
}
