import type { KeywardStore } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { fakeHash, storedKey, uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

/**
 * Imported keys (`importKeys`, `rehash`), for a key store that has them (the `imports()` feature
 * needs both): a batch is all or nothing, a second import changes nothing, and a rehash is a
 * compare-and-set on the current hash. A store without them skips this section.
 */
export function importKeysSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("KeyStore: imported keys", () => {
    const open = openStores(options);
    const openImporting = async (context: { skip(): void }) => {
      const store = await open();
      if (!store.keys.importKeys || !store.keys.rehash) context.skip();
      return store;
    };

    it("imports a batch, found by id, hash and owner, persisted as returned", async (context) => {
      const store = await openImporting(context);
      const ownerId = uniqueId("owner");
      const batch = [
        storedKey({ ownerId, createdAt: 1_000, expiresAt: Date.parse("2027-01-01T00:00:00Z") }),
        storedKey({
          ownerId,
          createdAt: 2_000,
          limits: { credits: { remaining: 5, grantedAt: 1_500 } },
          fields: { importedLastUsedAt: Date.parse("2025-12-31T23:59:59.123Z"), kinds: [] },
        }),
        storedKey({ ownerType: "organization", ownerId: uniqueId("org"), createdBy: ownerId }),
      ];
      const created = await store.keys.importKeys!(batch);
      expect(created.sort()).toEqual(batch.map((key) => key.id).sort());
      for (const key of batch) {
        expect(await store.keys.findById(key.id)).toEqual(key);
        expect(await store.keys.findByHash(key.secretHash)).toEqual(key);
        expect(await options.probe.rawKey(store, key.id)).not.toBeNull();
      }
      const listed = await store.keys.listByOwner({ type: "user", id: ownerId });
      expect(listed.map((key) => key.id)).toEqual([batch[1]!.id, batch[0]!.id]);
      // Imported keys are live keys like any other: `permissions({ disableAfterUnused })` scans them.
      if (store.keys.listLive) {
        const live = new Set<string>();
        let after: string | undefined;
        for (;;) {
          const page = await store.keys.listLive(
            after === undefined ? { limit: 500 } : { limit: 500, after },
          );
          for (const key of page) live.add(key.id);
          if (page.length < 500) break;
          after = page.at(-1)!.id;
        }
        for (const key of batch) expect(live).toContain(key.id);
      }
    });

    it("changes nothing on a second import of the same records, even after a rehash", async (context) => {
      const store = await openImporting(context);
      const batch = [storedKey(), storedKey()];
      await store.keys.importKeys!(batch);
      const newHash = fakeHash();
      await store.keys.rehash!(batch[0]!.id, batch[0]!.secretHash, newHash);
      expect(await store.keys.importKeys!(batch)).toEqual([]);
      expect((await store.keys.findById(batch[0]!.id))?.secretHash).toBe(newHash);
      expect(await store.keys.findByHash(batch[0]!.secretHash)).toBeNull();
      expect(await store.keys.findById(batch[1]!.id)).toEqual(batch[1]);
    });

    it("writes nothing of a batch in which one hash belongs to another key", async (context) => {
      const store = await openImporting(context);
      const existing = storedKey();
      await store.keys.create(existing);
      const fresh = storedKey();
      const clash = storedKey({ secretHash: existing.secretHash });
      await expect(store.keys.importKeys!([fresh, clash])).rejects.toBeDefined();
      expect(await store.keys.findById(fresh.id)).toBeNull();
      expect(await store.keys.findByHash(fresh.secretHash)).toBeNull();
      expect(await options.probe.rawKey(store, clash.id)).toBeNull();
      expect(await store.keys.findByHash(existing.secretHash)).toEqual(existing);
    });

    it("rehashes by compare-and-set: the old hash stops resolving, the record is otherwise as it was", async (context) => {
      const store = await openImporting(context);
      const key = storedKey();
      await store.keys.importKeys!([key]);
      const to = fakeHash();
      expect(await store.keys.rehash!(key.id, fakeHash(), to)).toBeNull();
      expect(await store.keys.rehash!(uniqueId("missing"), key.secretHash, to)).toBeNull();
      const rehashed = await store.keys.rehash!(key.id, key.secretHash, to);
      expect(rehashed).toEqual({ ...key, secretHash: to });
      expect(await store.keys.findByHash(to)).toEqual({ ...key, secretHash: to });
      expect(await store.keys.findByHash(key.secretHash)).toBeNull();
      // The same swap again finds the hash moved on: exactly one of concurrent first uses applies.
      expect(await store.keys.rehash!(key.id, key.secretHash, to)).toBeNull();
      const raw = JSON.stringify(await options.probe.rawKey(store, key.id));
      expect(raw).toContain(to);
      expect(raw).not.toContain(key.secretHash);
    });

    it("lets exactly one of 20 concurrent rehashes of one key apply", async (context) => {
      const store = await openImporting(context);
      const key = storedKey();
      await store.keys.importKeys!([key]);
      const to = fakeHash();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => store.keys.rehash!(key.id, key.secretHash, to)),
      );
      expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(1);
    });
  });
}
