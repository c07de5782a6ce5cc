/** The verification cache in front of imported keys: a rehash leaves no instance serving the old hash. */
import { describe, expect, it } from "vitest";
import { testHash as hash, storedKey as storedKeyFixture } from "../../test/support/stored-key.js";
import { memoryKeyStore } from "../memory/memory-key-store.js";
import { cachedKeyStore } from "./cached-key-store.js";
import { type KeyInvalidation, memoryInvalidationChannel } from "./invalidation-channel.js";

const storedKey = () => storedKeyFixture({ name: "imported", hint: "ba_…" });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("cachedKeyStore: imported keys", () => {
  it("forgets a remembered miss for a hash once a batch imports it", async () => {
    const cache = cachedKeyStore(memoryKeyStore());
    const key = storedKey();
    expect(await cache.findByHash(key.secretHash)).toBeNull();
    expect(cache.peek(key.secretHash)).toBeNull(); // the miss is remembered
    expect(await cache.importKeys!([key])).toEqual([key.id]);
    expect(cache.peek(key.secretHash)).toBeUndefined();
    expect((await cache.findByHash(key.secretHash))?.id).toBe(key.id);
  });

  it("forgets on every instance a miss remembered for a hash another instance imports", async () => {
    const inner = memoryKeyStore();
    const channel = memoryInvalidationChannel();
    const published: string[] = [];
    const counted = {
      ...channel,
      publish: (event: KeyInvalidation) => {
        published.push(event.secretHash);
        return channel.publish(event);
      },
    };
    const a = cachedKeyStore(inner, { channel: counted });
    const b = cachedKeyStore(inner, { channel });
    await Promise.all([a.ready, b.ready]);
    const key = storedKey();
    // The old system's client used the token on b before the import (verify looked it up).
    expect(await b.findByHash(key.secretHash)).toBeNull();
    expect(b.peek(key.secretHash)).toBeNull();
    await a.importKeys!([key]);
    await settle();
    expect(b.peek(key.secretHash)).toBeUndefined();
    expect((await b.findByHash(key.secretHash))?.id).toBe(key.id);
    expect(published).toEqual([key.secretHash]);
    // A record the import left as it was (already there) is not announced again.
    expect(await a.importKeys!([key])).toEqual([]);
    expect(published).toEqual([key.secretHash]);
  });

  it("evicts the old hash on every instance when a key is rehashed, and finds it under the new one", async () => {
    const inner = memoryKeyStore();
    const channel = memoryInvalidationChannel();
    const a = cachedKeyStore(inner, { channel });
    const b = cachedKeyStore(inner, { channel });
    await Promise.all([a.ready, b.ready]);
    const key = storedKey();
    const to = hash();
    await a.importKeys!([key]);
    // Both instances hold the key under its old hash; the one that will rehash has a miss for
    // the new one (verify never looks the new hash up before the old one, so only it can).
    expect((await a.findByHash(key.secretHash))?.id).toBe(key.id);
    expect((await b.findByHash(key.secretHash))?.id).toBe(key.id);
    expect(await a.findByHash(to)).toBeNull();

    expect((await a.rehash!(key.id, key.secretHash, to))?.secretHash).toBe(to);
    await settle();
    for (const cache of [a, b]) {
      expect(cache.peek(key.secretHash)).toBeUndefined();
      expect(await cache.findByHash(key.secretHash)).toBeNull();
      expect((await cache.findByHash(to))?.secretHash).toBe(to);
    }
  });

  it("passes importKeys and rehash on only when the store behind has them", () => {
    const { importKeys: _import, rehash: _rehash, ...without } = memoryKeyStore();
    const cache = cachedKeyStore(without);
    expect(cache.importKeys).toBeUndefined();
    expect(cache.rehash).toBeUndefined();
  });
});
