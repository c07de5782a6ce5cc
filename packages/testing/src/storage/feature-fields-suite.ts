import type { JsonValue, KeywardStore } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { fakeHash, storedKey, uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

/**
 * Feature fields (`StoredKey.fields`): the fields features add to a key, which a store keeps
 * without knowing them. Arbitrary names and JSON values, the awkward ones included (empty lists and
 * objects, nested values, text that looks like SQL or Lua, non-ASCII), survive every write: created,
 * set, replaced and removed by `update` and `rotate` (fields not named keep their values), kept by
 * `revoke`, `setOwnerTier` and `setLimits`.
 */
export function featureFieldsSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("KeyStore: feature fields", () => {
    const open = openStores(options);

    /** Values no store may bend: each must read back exactly as written. */
    const awkward: Record<string, JsonValue> = {
      list: ["203.0.113.0/24", "2001:db8::/32"],
      emptyList: [],
      emptyObject: {},
      nested: { profile: ["alice", "名前🔑", "'; --"], project: [], depth: { n: 1.5, ok: true } },
      text: "v1.k1.aXY.Y2lwaGVy",
      quoted: 'it\'s "quoted" -- ]] [[ end',
      number: 1_735_689_599_123,
      zero: 0,
      flag: false,
      "name.with:odd-chars": "field names are any text",
    };

    it("keeps arbitrary feature fields as given through create, by id, hash and owner", async () => {
      const { keys } = await open();
      const ownerId = uniqueId("owner");
      const plain = storedKey({ ownerId, createdAt: 1_000 });
      const rich = storedKey({ ownerId, createdAt: 2_000, fields: awkward });
      for (const key of [plain, rich]) await keys.create(key);
      expect(await keys.findById(rich.id)).toEqual(rich);
      expect(await keys.findByHash(rich.secretHash)).toEqual(rich);
      expect(await keys.listByOwner({ type: "user", id: ownerId })).toEqual([rich, plain]);
      // A key without any reads with none: exactly the record it was.
      expect(await keys.findById(plain.id)).toEqual(plain);
      expect((await keys.findById(plain.id))!.fields).toBeUndefined();
    });

    it("keeps its own copy: neither the caller's object nor a found record changes what is stored", async () => {
      const { keys } = await open();
      const fields = { allowed: ["192.0.2.7"] as JsonValue[] };
      const key = storedKey({ fields });
      await keys.create(key);
      fields.allowed.push("0.0.0.0/0");
      const found = (await keys.findById(key.id))!;
      try {
        (found.fields!.allowed as JsonValue[]).push("0.0.0.0/0");
      } catch {
        // A frozen record refuses the change: just as good as a copy.
      }
      expect((await keys.findById(key.id))!.fields).toEqual({ allowed: ["192.0.2.7"] });
    });

    it("sets, replaces and removes fields by update, keeping the fields it does not name", async () => {
      const { keys } = await open();
      const key = storedKey({ fields: { kept: { a: [1, 2] }, replaced: "old", removed: [] } });
      await keys.create(key);
      const updated = await keys.update(key.id, {
        name: "renamed",
        fields: { replaced: { now: ["an", "object"] }, removed: null, added: awkward },
      });
      const expected = {
        kept: { a: [1, 2] },
        replaced: { now: ["an", "object"] },
        added: awkward,
      };
      expect(updated).toEqual({ ...key, name: "renamed", fields: expected, version: 2 });
      expect(await keys.findById(key.id)).toEqual(updated);
      // An update that names no field keeps them all; removing a field never stored is no error.
      expect((await keys.update(key.id, { name: "again" }))?.fields).toEqual(expected);
      expect((await keys.update(key.id, { fields: { never: null } }))?.fields).toEqual(expected);
      // Removing every field leaves a record with none, as one that never had any.
      const emptied = await keys.update(key.id, {
        fields: { kept: null, replaced: null, added: null },
      });
      expect(emptied?.fields).toBeUndefined();
      expect((await keys.findByHash(key.secretHash))?.fields).toBeUndefined();
    });

    it("writes a rotation's fields with it, keeps the others, and keeps them all through revoke", async () => {
      const store = await open();
      const { keys } = store;
      const key = storedKey({ fields: { sealed: "v1.k1.aXY.b2xk", other: ["x"] } });
      await keys.create(key);
      const second = fakeHash();
      const rotated = await keys.rotate({
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: second,
        hint: "sk_live_…wxyz",
        rotatedAt: key.createdAt + 1,
        fields: { sealed: "v1.k2.aXY.bmV3" },
      });
      expect(rotated?.fields).toEqual({ sealed: "v1.k2.aXY.bmV3", other: ["x"] });
      const plain = await keys.rotate({
        id: key.id,
        expectedHash: second,
        secretHash: fakeHash(),
        hint: "sk_live_…wxyz",
        rotatedAt: key.createdAt + 2,
        fields: { sealed: null },
      });
      expect(plain?.fields).toEqual({ other: ["x"] });
      const untouched = await keys.rotate({
        id: key.id,
        expectedHash: plain!.secretHash,
        secretHash: fakeHash(),
        hint: "sk_live_…wxyz",
        rotatedAt: key.createdAt + 3,
      });
      expect(untouched?.fields).toEqual({ other: ["x"] });
      // What a rotation removed is gone from storage, not only from the record read back.
      const raw = JSON.stringify(await options.probe.rawKey(store, key.id));
      expect(raw).toContain(key.id);
      expect(raw).not.toContain("bmV3");
      const revoked = await keys.revoke(key.id, key.createdAt + 4);
      expect(revoked?.fields).toEqual({ other: ["x"] });
      // A revoked key's fields are final, like the rest of it.
      expect(await keys.update(key.id, { fields: { other: null } })).toBeNull();
      expect((await keys.findById(key.id))?.fields).toEqual({ other: ["x"] });
    });

    it("keeps fields through setOwnerTier and setLimits", async () => {
      const { keys } = await open();
      const key = storedKey({ fields: awkward });
      await keys.create(key);
      const [tiered] = await keys.setOwnerTier({ type: "user", id: key.ownerId }, "pro");
      expect(tiered?.fields).toEqual(awkward);
      if (keys.setLimits) {
        const limited = await keys.setLimits(key.id, { credits: { remaining: 3, grantedAt: 1 } });
        expect(limited?.fields).toEqual(awkward);
      }
      expect((await keys.findById(key.id))?.fields).toEqual(awkward);
    });
  });
}
