/**
 * `listByOwner` reads its pages from the owner's sorted-set index, against the real Redis at
 * 127.0.0.1:6379. Every page is checked against `pageOfKeys` over the whole list sorted by
 * `newestKeyFirst`, the order every store promises, including keys created in the same millisecond
 * and data written before the index existed.
 */
import {
  createKeyward,
  type KeyStore,
  manualClock,
  memoryStore,
  type Owner,
  type StoredKey,
} from "@keyward/core";
import { newestKeyFirst, pageOfKeys } from "@keyward/core/toolkit";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisStore, redisStore } from "../src/index.js";
import { toKeyFields } from "../src/keys/key-fields.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";
import { seededRandom } from "./support/seeded-random.js";

const base = Date.UTC(2026, 2, 1);
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Ids in no relation to creation order, so ties are ordered by id, not by when they were written. */
function randomIds(seed: number) {
  const random = seededRandom(seed);
  return () =>
    `key_${Array.from({ length: 24 }, () => base62[Math.floor(random() * 62)]).join("")}`;
}

function storedKey(id: string, ownerId: string, createdAt: number): StoredKey {
  return {
    id,
    ownerType: "user",
    ownerId,
    createdBy: ownerId,
    name: id,
    scopes: ["profile:read"],
    tier: "free",
    secretHash: id.padEnd(64, "0").slice(0, 64),
    hint: "sk_live_…abcd",
    createdAt,
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

/** Walks every page of `limit` by cursor; checks each against `pageOfKeys` over `expected`. */
async function walk(keys: KeyStore, owner: Owner, limit: number, expected: StoredKey[]) {
  const walked: StoredKey[] = [];
  let after: { createdAt: number; id: string } | undefined;
  for (;;) {
    const page = await keys.listByOwner(owner, { limit, ...(after ? { after } : {}) });
    expect(page).toEqual(pageOfKeys(expected, { limit, ...(after ? { after } : {}) }));
    walked.push(...page);
    const last = page.at(-1);
    if (page.length < limit || !last) break;
    after = { createdAt: last.createdAt, id: last.id };
  }
  return walked;
}

describe.skipIf(!redisAvailable)("redis listByOwner, paged from the owner's index", () => {
  let client: IORedis;
  let store: RedisStore;
  let keys: KeyStore;
  const prefix = testPrefix("list-by-owner");
  const ownerNewest = (ownerId: string) => `${prefix}{keys}:owner-newest:${ownerId}`;
  const ownerSet = (ownerId: string) => `${prefix}{keys}:owner:${ownerId}`;

  beforeAll(() => {
    client = new IORedis(localRedis);
    store = redisStore({ client, prefix, keys: true, timeoutMs: 5_000 });
    keys = store.keys!;
  });
  afterAll(async () => {
    await store.close();
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  it("orders keys of one millisecond by id, and pages through them by cursor", async () => {
    const clock = manualClock(base);
    const memory = memoryStore();
    const keyward = createKeyward({
      store: { keys, usage: memory.usage, rateLimits: memory.rateLimits },
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      clock,
    });
    // Twelve keys in one millisecond, then four in the next: the ids decide within each.
    for (let i = 0; i < 16; i++) {
      if (i === 12) clock.advance(1);
      await keyward.keys.create({
        ownerId: "tied",
        accountTier: "free",
        name: `tied ${i}`,
        scopes: ["profile:read"],
        tier: "free",
      });
    }
    const owner = { type: "user", id: "tied" } as const;
    const all = await keys.listByOwner(owner);
    expect(all).toHaveLength(16);
    expect(all).toEqual([...all].sort(newestKeyFirst));
    expect(all.slice(0, 4).every((key) => key.createdAt === base + 1)).toBe(true);
    for (const limit of [1, 2, 3, 5, 16, 17])
      expect(await walk(keys, owner, limit, all)).toEqual(all);
    // Through the API's cursor, pages of 5 (the store is asked for 6).
    const listed: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await keyward.keys.listPage("tied", { limit: 5, cursor });
      listed.push(...page.data.map((key) => key.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed).toEqual(all.map((key) => key.id));
    await keyward.close();
  });

  it("walks 250 keys in pages of 7, every page as pageOfKeys cuts it", async () => {
    const nextId = randomIds(250);
    const created: StoredKey[] = [];
    // Four keys a millisecond, written out of order: the index, not the writes, gives the order.
    const order = seededRandom(7);
    const indexes = Array.from({ length: 250 }, (_, i) => i).sort(() => order() - 0.5);
    for (const i of indexes) {
      const key = storedKey(nextId(), "many", base + Math.floor(i / 4));
      await keys.create(key);
      created.push(key);
    }
    const expected = created.sort(newestKeyFirst);
    const owner = { type: "user", id: "many" } as const;
    expect(await keys.listByOwner(owner)).toEqual(expected);
    expect(await walk(keys, owner, 7, expected)).toEqual(expected);
    expect(await keys.listByOwner(owner, { limit: 0 })).toEqual([]);
    // Cursors that are no listed key: between two ids of one millisecond, past the newest, before
    // the oldest, and a time no key has.
    const tied = expected[101]!;
    for (const after of [
      { createdAt: tied.createdAt, id: `${tied.id}0` },
      { createdAt: tied.createdAt, id: tied.id.slice(0, -1) },
      { createdAt: tied.createdAt, id: "key_" },
      { createdAt: tied.createdAt, id: "key_zzzz" },
      { createdAt: base + 10_000, id: "" },
      { createdAt: base - 1, id: "" },
      { createdAt: 0, id: "" },
      { createdAt: base + 20.5, id: "x" },
    ]) {
      expect(await keys.listByOwner(owner, { limit: 9, after })).toEqual(
        pageOfKeys(expected, { limit: 9, after }),
      );
      expect(await keys.listByOwner(owner, { after })).toEqual(pageOfKeys(expected, { after }));
    }
    expect(await client.zcard(ownerNewest("many"))).toBe(250);
  });

  it("keeps a revoked, rotated, updated or re-tiered key in its place", async () => {
    const nextId = randomIds(3);
    const owner = { type: "user", id: "changes" } as const;
    for (let i = 0; i < 30; i++) await keys.create(storedKey(nextId(), "changes", base + (i % 10)));
    const before = await keys.listByOwner(owner);
    const [revoked, rotated, updated] = [before[3]!, before[14]!, before[27]!];
    await keys.revoke(revoked.id, base + 100);
    await keys.rotate({
      id: rotated.id,
      expectedHash: rotated.secretHash,
      secretHash: "f".repeat(64),
      hint: "sk_live_…ffff",
      rotatedAt: base + 100,
      previousSecretExpiresAt: base + 200,
    });
    await keys.update(updated.id, { name: "renamed", disabledAt: base + 100 });
    await keys.setOwnerTier(owner, "pro");
    const after = await keys.listByOwner(owner);
    expect(after.map((key) => key.id)).toEqual(before.map((key) => key.id));
    expect(after[3]!.revokedAt).toBe(base + 100);
    expect(after[14]!.secretHash).toBe("f".repeat(64));
    expect(after[27]!.name).toBe("renamed");
    expect(await walk(keys, owner, 4, after)).toEqual(after);
  });

  it("builds the index once from an owner set the previous release wrote", async () => {
    const nextId = randomIds(99);
    const owner = { type: "organization", id: "old-org" } as const;
    const written: StoredKey[] = [];
    // Exactly what the previous release's create script wrote: record, hash index, owner set.
    for (let i = 0; i < 60; i++) {
      const key = {
        ...storedKey(nextId(), "old-org", base + Math.floor(i / 3)),
        ownerType: "organization" as const,
        createdBy: "someone",
      };
      await client.hset(`${prefix}{keys}:id:${key.id}`, ...toKeyFields(key));
      await client.set(`${prefix}{keys}:hash:${key.secretHash}`, key.id);
      await client.sadd(`${prefix}{keys}:org:old-org`, key.id);
      written.push(key);
    }
    const index = `${prefix}{keys}:org-newest:old-org`;
    expect(await client.exists(index)).toBe(0);
    const expected = written.sort(newestKeyFirst);
    expect(await walk(keys, owner, 7, expected)).toEqual(expected);
    expect(await client.zcard(index)).toBe(60);
    expect(await client.zscore(index, expected[0]!.id)).toBe(String(expected[0]!.createdAt));
    // The user with the same id is another owner, with no keys and no index.
    expect(await keys.listByOwner({ type: "user", id: "old-org" })).toEqual([]);

    // An instance still on the previous release creates a key meanwhile: the set grows past the
    // index, and the next listing adds it.
    const late = {
      ...storedKey(nextId(), "old-org", base + 1_000),
      ownerType: "organization" as const,
      createdBy: "someone",
    };
    await client.hset(`${prefix}{keys}:id:${late.id}`, ...toKeyFields(late));
    await client.sadd(`${prefix}{keys}:org:old-org`, late.id);
    const withLate = [late, ...expected];
    expect(await walk(keys, owner, 10, withLate)).toEqual(withLate);
    expect(await client.zcard(index)).toBe(61);
  });

  it("rebuilds a lost index, and skips an id whose record is gone without rebuilding again", async () => {
    const nextId = randomIds(5);
    const owner = { type: "user", id: "lost" } as const;
    for (let i = 0; i < 20; i++) await keys.create(storedKey(nextId(), "lost", base + (i % 4)));
    const expected = await keys.listByOwner(owner);
    await client.del(ownerNewest("lost"));
    expect(await walk(keys, owner, 3, expected)).toEqual(expected);
    expect(await client.zcard(ownerNewest("lost"))).toBe(20);

    // A member left behind by hand: indexed at -inf, never answered, and the sizes agree again.
    await client.sadd(ownerSet("lost"), "key_gone");
    expect(await keys.listByOwner(owner, { limit: 100 })).toEqual(expected);
    expect(await client.zscore(ownerNewest("lost"), "key_gone")).toBe("-inf");
    expect(await client.zcard(ownerNewest("lost"))).toBe(await client.scard(ownerSet("lost")));
    expect(await walk(keys, owner, 6, expected)).toEqual(expected);
  });
});
