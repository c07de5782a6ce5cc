/**
 * How long the Redis key store takes to answer one page of an owner who holds 10,000 keys: the
 * first page and one from the middle (reached by its cursor), limit 20, median of 5 runs each.
 * The keys are written through the store's own `create`, three to a millisecond so that ties in
 * `createdAt` are paged too. Then the owner's listing index is deleted, as in data an earlier
 * release wrote, and the listing that rebuilds it and the next one are timed once each.
 *
 *   cd bench && node --conditions=@keyward/source --import tsx redis-list-owner.ts
 *   # KEYWARD_BENCH_REDIS_URL (default redis://127.0.0.1:6379), LIST_OWNER_KEYS (default 10000)
 */
import type { StoredKey } from "@keyward/core";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";

const url = process.env.KEYWARD_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const keyCount = Number(process.env.LIST_OWNER_KEYS ?? 10_000);
const runs = 5;
const limit = 20;
const prefix = `kwbench:list-owner:${Date.now().toString(36)}:`;
const owner = { type: "user", id: "big-owner" } as const;
const firstCreatedAt = Date.UTC(2026, 0, 1);

function seededKey(i: number): StoredKey {
  const id = `key_${String(i).padStart(24, "0")}`;
  return {
    id,
    ownerType: "user",
    ownerId: owner.id,
    createdBy: owner.id,
    name: `key ${i}`,
    scopes: ["profile:read"],
    tier: "free",
    secretHash: i.toString(16).padStart(64, "0"),
    hint: "sk_live_…abcd",
    createdAt: firstCreatedAt + Math.floor(i / 3),
    expiresAt: null,
    revokedAt: null,
    rotatedAt: null,
    previousSecretHash: null,
    previousSecretExpiresAt: null,
    version: 1,
    ownerTier: "free",
    disabledAt: null,
    metadata: null,
  };
}

async function median(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

const client = new IORedis(url);
const admin = new IORedis(url);
const store = redisStore({ client, prefix, keys: true, timeoutMs: 60_000 });
const keys = store.keys!;
try {
  for (let start = 0; start < keyCount; start += 500) {
    const batch = Array.from({ length: Math.min(500, keyCount - start) }, (_, k) => start + k);
    await Promise.all(batch.map((i) => keys.create(seededKey(i))));
  }
  // Newest first: key `keyCount - 1` heads the list; the middle page starts after the key halfway.
  const middle = seededKey(Math.floor(keyCount / 2));
  const after = { createdAt: middle.createdAt, id: middle.id };
  const first = await keys.listByOwner(owner, { limit });
  const middlePage = await keys.listByOwner(owner, { limit, after });
  if (first.length !== limit || middlePage.length !== limit) throw new Error("short page");
  const firstMs = await median(() => keys.listByOwner(owner, { limit }));
  const middleMs = await median(() => keys.listByOwner(owner, { limit, after }));
  // The upgrade: the owner's listing index gone, as in a database an earlier release wrote. The
  // next listing builds it from the owner set (once), the one after reads it as usual.
  await admin.del(`${prefix}{keys}:owner-newest:${owner.id}`);
  let start = performance.now();
  await keys.listByOwner(owner, { limit });
  const rebuildMs = performance.now() - start;
  start = performance.now();
  await keys.listByOwner(owner, { limit });
  const afterRebuildMs = performance.now() - start;
  console.log(
    `${keyCount} keys, limit ${limit}, median of ${runs}: first page ${firstMs.toFixed(2)} ms, middle page ${middleMs.toFixed(2)} ms; ` +
      `without the index: first listing ${rebuildMs.toFixed(2)} ms, the next ${afterRebuildMs.toFixed(2)} ms`,
  );
} finally {
  let cursor = "0";
  do {
    const [next, found] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    if (found.length) await admin.del(...found);
    cursor = next;
  } while (cursor !== "0");
  await store.close();
  client.disconnect(); // the store leaves a client it was given open
  admin.disconnect();
}
