import { describe, expect, it, vi } from "vitest";
import { testHash as hash, storedKey } from "../../test/support/stored-key.js";
import { manualClock } from "../clock.js";
import { memoryKeyStore } from "../memory/memory-key-store.js";
import type { KeyStore } from "../storage/key-store.js";
import { cachedKeyStore } from "./cached-key-store.js";
import { type InvalidationChannel, memoryInvalidationChannel } from "./invalidation-channel.js";

/** A memory store that counts the lookups reaching it. */
function countingStore() {
  const inner = memoryKeyStore();
  const calls = { findByHash: 0 };
  const store: KeyStore = {
    ...inner,
    findByHash: (secretHash) => {
      calls.findByHash++;
      return inner.findByHash(secretHash);
    },
  };
  return { store, calls, inner };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("cachedKeyStore", () => {
  it("answers a warm lookup without reaching the store, and hands out frozen records", async () => {
    const { store, calls } = countingStore();
    const cache = cachedKeyStore(store);
    const key = storedKey();
    await cache.create(key);
    expect(await cache.findByHash(key.secretHash)).toEqual(key);
    const again = (await cache.findByHash(key.secretHash))!;
    expect(again).toEqual(key);
    expect(calls.findByHash).toBe(1);
    expect(cache.stats).toMatchObject({ hits: 1, misses: 1 });
    expect(Object.isFrozen(again) && Object.isFrozen(again.scopes)).toBe(true);
    expect(() => (again.scopes as string[]).push("admin")).toThrow(TypeError);
    expect(await cache.findByHash(key.secretHash)).toEqual(key);
  });

  it("shares one store lookup between concurrent callers", async () => {
    const { store, calls } = countingStore();
    const cache = cachedKeyStore(store);
    const key = storedKey();
    await cache.create(key);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => cache.findByHash(key.secretHash)),
    );
    expect(results.every((result) => result?.id === key.id)).toBe(true);
    expect(calls.findByHash).toBe(1);
  });

  it("forgets the old secret at once when it rotates, and sees a revocation at once", async () => {
    const cache = cachedKeyStore(memoryKeyStore());
    const key = storedKey();
    await cache.create(key);
    await cache.findByHash(key.secretHash);
    const next = hash();
    await cache.rotate({
      id: key.id,
      expectedHash: key.secretHash,
      secretHash: next,
      hint: "h",
      rotatedAt: 2,
    });
    expect(await cache.findByHash(key.secretHash)).toBeNull();
    expect((await cache.findByHash(next))?.rotatedAt).toBe(2);
    await cache.revoke(key.id, 3);
    expect((await cache.findByHash(next))?.revokedAt).toBe(3);
  });

  it("evicts on every instance through the channel", async () => {
    const inner = memoryKeyStore();
    const channel = memoryInvalidationChannel();
    const a = cachedKeyStore(inner, { channel });
    const b = cachedKeyStore(inner, { channel });
    await Promise.all([a.ready, b.ready]);
    const key = storedKey();
    await a.create(key);
    expect((await b.findByHash(key.secretHash))?.revokedAt).toBeNull();
    await a.revoke(key.id, 5);
    await settle();
    expect((await b.findByHash(key.secretHash))?.revokedAt).toBe(5);

    const other = storedKey();
    await a.create(other);
    await b.findByHash(other.secretHash);
    await a.rotate({
      id: other.id,
      expectedHash: other.secretHash,
      secretHash: hash(),
      hint: "h",
      rotatedAt: 6,
    });
    await settle();
    expect(await b.findByHash(other.secretHash)).toBeNull();
  });

  it("serves a record changed behind its back only until the TTL", async () => {
    const clock = manualClock(0);
    const inner = memoryKeyStore();
    const cache = cachedKeyStore(inner, { clock, ttlMs: 1_000 });
    const key = storedKey();
    await inner.create(key);
    await cache.findByHash(key.secretHash);
    await inner.revoke(key.id, 10);
    clock.advance(999);
    expect((await cache.findByHash(key.secretHash))?.revokedAt).toBeNull();
    clock.advance(1);
    expect((await cache.findByHash(key.secretHash))?.revokedAt).toBe(10);
  });

  it("remembers a miss briefly, in its own bounded space", async () => {
    const clock = manualClock(0);
    const { store, calls } = countingStore();
    const cache = cachedKeyStore(store, {
      clock,
      negativeTtlMs: 500,
      maxEntries: 2,
      maxNegativeEntries: 1,
    });
    const key = storedKey();
    await cache.create(key);
    await cache.findByHash(key.secretHash);
    const unknown = hash();
    await cache.findByHash(unknown);
    await cache.findByHash(unknown);
    expect(calls.findByHash).toBe(2);
    await cache.findByHash(hash()); // pushes `unknown` out of the one negative slot
    await cache.findByHash(unknown);
    expect(calls.findByHash).toBe(4);
    clock.advance(500);
    await cache.findByHash(unknown);
    expect(calls.findByHash).toBe(5);
    // Misses never displaced the real record.
    await cache.findByHash(key.secretHash);
    expect(calls.findByHash).toBe(5);
  });

  it("peeks at what it holds without ever reaching the store", async () => {
    const clock = manualClock(0);
    const { store, calls } = countingStore();
    const channel = memoryInvalidationChannel();
    const cache = cachedKeyStore(store, { clock, channel, negativeTtlMs: 500 });
    await cache.ready;
    const key = storedKey();
    await cache.create(key);
    const unknown = hash();
    // Not looked up yet: only the store could tell.
    expect(cache.peek(key.secretHash)).toBeUndefined();
    expect(cache.peek(unknown)).toBeUndefined();
    await cache.findByHash(key.secretHash);
    await cache.findByHash(unknown);
    expect(calls.findByHash).toBe(2);
    expect(cache.peek(key.secretHash)).toEqual(key);
    expect(cache.peek(unknown)).toBeNull();
    expect(calls.findByHash).toBe(2);
    expect(cache.stats).toMatchObject({ hits: 1, negativeHits: 1, misses: 2 });
    // A remembered miss is forgotten after negativeTtlMs; a revoked key leaves the cache at once.
    clock.advance(500);
    expect(cache.peek(unknown)).toBeUndefined();
    await cache.revoke(key.id, 10);
    expect(cache.peek(key.secretHash)).toBeUndefined();
    // While the channel is down nothing is cached, so there is nothing to peek at.
    await cache.findByHash(key.secretHash);
    channel.interrupt();
    expect(cache.peek(key.secretHash)).toBeUndefined();
    expect(calls.findByHash).toBe(3);
  });

  it("holds at most maxEntries records, dropping the least recently used", async () => {
    const { store, calls } = countingStore();
    const cache = cachedKeyStore(store, { maxEntries: 2 });
    const [a, b, c] = [storedKey(), storedKey(), storedKey()];
    for (const key of [a, b, c]) await cache.create(key);
    await cache.findByHash(a.secretHash);
    await cache.findByHash(b.secretHash);
    await cache.findByHash(a.secretHash); // a is now the most recent
    await cache.findByHash(c.secretHash); // evicts b
    expect(cache.size).toBe(2);
    const before = calls.findByHash;
    await cache.findByHash(a.secretHash);
    expect(calls.findByHash).toBe(before);
    await cache.findByHash(b.secretHash);
    expect(calls.findByHash).toBe(before + 1);
  });

  it("does not cache a lookup that raced an invalidation", async () => {
    const inner = memoryKeyStore();
    const key = storedKey();
    await inner.create(key);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: KeyStore = {
      ...inner,
      findByHash: async (secretHash) => {
        const found = await inner.findByHash(secretHash);
        await gate;
        return found;
      },
    };
    const cache = cachedKeyStore(slow);
    const pending = cache.findByHash(key.secretHash); // reads the record before the revocation
    await cache.revoke(key.id, 9);
    release();
    expect((await pending)?.revokedAt).toBeNull();
    expect((await cache.findByHash(key.secretHash))?.revokedAt).toBe(9);
  });

  it("drops everything and stops caching while the channel is interrupted", async () => {
    const { store, calls } = countingStore();
    const channel = memoryInvalidationChannel();
    const cache = cachedKeyStore(store, { channel });
    await cache.ready;
    const key = storedKey();
    await cache.create(key);
    await cache.findByHash(key.secretHash);
    channel.interrupt();
    expect(cache.caching).toBe(false);
    expect(cache.size).toBe(0);
    await cache.findByHash(key.secretHash);
    await cache.findByHash(key.secretHash);
    expect(calls.findByHash).toBe(3);
    channel.restore();
    await cache.findByHash(key.secretHash);
    await cache.findByHash(key.secretHash);
    expect(calls.findByHash).toBe(4);
    expect(cache.stats.resets).toBe(2);
  });

  it("shares one store lookup between concurrent callers while interrupted, and keeps nothing", async () => {
    const inner = memoryKeyStore();
    let lookups = 0;
    let open: () => void = () => {};
    let gate = Promise.resolve();
    const closeGate = () => {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    };
    const slow: KeyStore = {
      ...inner,
      findByHash: async (secretHash) => {
        lookups++;
        const found = await inner.findByHash(secretHash);
        await gate;
        return found;
      },
    };
    const channel = memoryInvalidationChannel();
    const cache = cachedKeyStore(slow, { channel });
    await cache.ready;
    const key = storedKey();
    await cache.create(key);
    channel.interrupt();

    closeGate();
    const burst = Array.from({ length: 10 }, () => cache.findByHash(key.secretHash));
    await settle();
    expect(lookups).toBe(1);
    open();
    expect((await Promise.all(burst)).every((found) => found?.id === key.id)).toBe(true);
    expect(cache.stats.bypassed).toBe(10);

    // Not kept: the next lookup asks the store again. And one that starts after a change made
    // here does not join a lookup that began before it.
    closeGate();
    const before = cache.findByHash(key.secretHash);
    await settle();
    await cache.revoke(key.id, 9);
    const after = cache.findByHash(key.secretHash);
    await settle();
    open();
    expect((await before)?.revokedAt).toBeNull();
    expect((await after)?.revokedAt).toBe(9);
    expect(lookups).toBe(3);
    expect(cache.size).toBe(0);
  });

  it("does not cache until the subscription is live", async () => {
    const { store, calls } = countingStore();
    let live!: (stop: () => Promise<void>) => void;
    const channel: InvalidationChannel = {
      publish: async () => {},
      subscribe: () => new Promise((resolve) => (live = resolve)),
    };
    const cache = cachedKeyStore(store, { channel });
    const key = storedKey();
    await cache.create(key);
    await cache.findByHash(key.secretHash);
    await cache.findByHash(key.secretHash);
    expect(calls.findByHash).toBe(2);
    live(async () => {});
    await cache.ready;
    await cache.findByHash(key.secretHash);
    await cache.findByHash(key.secretHash);
    expect(calls.findByHash).toBe(3);
  });

  it("reports a failed publish but still reports the revocation as done", async () => {
    const onError = vi.fn();
    const channel: InvalidationChannel = {
      publish: async () => {
        throw new Error("connection lost");
      },
      subscribe: async () => async () => {},
    };
    const cache = cachedKeyStore(memoryKeyStore(), { channel, onError });
    await cache.ready;
    const key = storedKey();
    await cache.create(key);
    expect((await cache.revoke(key.id, 1))?.revokedAt).toBe(1);
    expect(onError).toHaveBeenCalledOnce();
  });

  it("unsubscribes and stops caching on close", async () => {
    const channel = memoryInvalidationChannel();
    const { store, calls } = countingStore();
    const cache = cachedKeyStore(store, { channel });
    await cache.ready;
    const key = storedKey();
    await cache.create(key);
    await cache.close();
    await cache.findByHash(key.secretHash);
    await cache.findByHash(key.secretHash);
    expect(calls.findByHash).toBe(2);
    channel.interrupt();
    channel.restore();
    expect(cache.caching).toBe(false);
  });

  it("checks its options", () => {
    expect(() => cachedKeyStore(memoryKeyStore(), { ttlMs: 0 })).toThrow(TypeError);
    expect(() => cachedKeyStore(memoryKeyStore(), { maxEntries: 0 })).toThrow(TypeError);
    expect(() => cachedKeyStore(memoryKeyStore(), { negativeTtlMs: -1 })).toThrow(TypeError);
  });
});
