import type { KeywardStore } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { fakeHash, storedKey } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

/**
 * A key's sealed secret (`recoverable()`): kept as given by `create`, replaced by a rotation that
 * brings one and dropped by one that does not (a sealed secret is always the current one's), and
 * set or cleared by `update`.
 */
export function sealedSecretSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("KeyStore: sealed secrets", () => {
    const open = openStores(options);

    it("keeps a sealed secret through create, replaces it on rotation, drops it on a rotation without one", async () => {
      const store = await open();
      const { keys } = store;
      const key = storedKey({ sealedSecret: "v1.k1.aXY.Y2lwaGVy" });
      await keys.create(key);
      expect((await keys.findById(key.id))?.sealedSecret).toBe("v1.k1.aXY.Y2lwaGVy");
      expect((await keys.findByHash(key.secretHash))?.sealedSecret).toBe("v1.k1.aXY.Y2lwaGVy");
      const second = fakeHash();
      const rotated = await keys.rotate({
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: second,
        hint: "sk_live_…wxyz",
        rotatedAt: key.createdAt + 1,
        sealedSecret: "v1.k2.aXY.bmV3",
      });
      expect(rotated?.sealedSecret).toBe("v1.k2.aXY.bmV3");
      const plain = await keys.rotate({
        id: key.id,
        expectedHash: second,
        secretHash: fakeHash(),
        hint: "sk_live_…wxyz",
        rotatedAt: key.createdAt + 2,
      });
      expect(plain?.sealedSecret ?? null).toBeNull();
      expect((await keys.findById(key.id))?.sealedSecret ?? null).toBeNull();
      const raw = JSON.stringify(await options.probe.rawKey(store, key.id));
      expect(raw).toContain(key.id);
      expect(raw).not.toContain("bmV3");
    });

    it("sets and clears a sealed secret with update, and a key without one reads as before", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      expect(await keys.findById(key.id)).toEqual(key);
      expect((await keys.update(key.id, { sealedSecret: "v1.k1.aXY.c2V0" }))?.sealedSecret).toBe(
        "v1.k1.aXY.c2V0",
      );
      expect((await keys.update(key.id, { sealedSecret: null }))?.sealedSecret ?? null).toBeNull();
    });
  });
}
