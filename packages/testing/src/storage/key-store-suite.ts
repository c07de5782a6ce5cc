import type { KeywardStore } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { fakeHash, storedKey, uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

export function keyStoreSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("KeyStore", () => {
    const open = openStores(options);

    it("creates a key and finds it by id and by hash", async () => {
      const { keys } = await open();
      const key = storedKey({ expiresAt: Date.parse("2027-01-01T00:00:00.000Z") });
      await keys.create(key);
      expect(await keys.findById(key.id)).toEqual(key);
      expect(await keys.findByHash(key.secretHash)).toEqual(key);
    });

    it("returns null for a missing id or hash", async () => {
      const { keys } = await open();
      expect(await keys.findById(uniqueId("missing"))).toBeNull();
      expect(await keys.findByHash(fakeHash())).toBeNull();
    });

    it("rejects a duplicate id and a duplicate hash, changing nothing", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      await expect(keys.create(storedKey({ id: key.id }))).rejects.toBeDefined();
      const sameHash = storedKey({ secretHash: key.secretHash });
      await expect(keys.create(sameHash)).rejects.toBeDefined();
      expect(await keys.findById(sameHash.id)).toBeNull();
      expect(await keys.findByHash(key.secretHash)).toEqual(key);
    });

    it("lists an owner's keys newest first, and only theirs", async () => {
      const { keys } = await open();
      const ownerId = uniqueId("owner");
      const older = storedKey({ ownerId, createdAt: 1_000 });
      const newer = storedKey({ ownerId, createdAt: 2_000 });
      const sameTimeA = storedKey({ ownerId, createdAt: 1_500, id: `${uniqueId("k")}_a` });
      const sameTimeB = storedKey({ ownerId, createdAt: 1_500, id: `${sameTimeA.id}b` });
      for (const key of [older, sameTimeA, newer, sameTimeB]) await keys.create(key);
      await keys.create(storedKey());
      const listed = await keys.listByOwner({ type: "user", id: ownerId });
      expect(listed.map((key) => key.id)).toEqual([newer.id, sameTimeB.id, sameTimeA.id, older.id]);
      expect(await keys.listByOwner({ type: "user", id: uniqueId("nobody") })).toEqual([]);
    });

    it("counts an owner's live keys (countLiveByOwner) as its listing would", async (context) => {
      const { keys } = await open();
      // Optional: a store without it is counted by listing, which this suite checks above.
      if (!keys.countLiveByOwner) return context.skip();
      const now = Date.parse("2026-06-01T00:00:00.000Z");
      const ownerId = uniqueId("owner");
      const owned = [
        storedKey({ ownerId }),
        storedKey({ ownerId, disabledAt: now - 1_000 }),
        storedKey({ ownerId, expiresAt: now + 1 }),
        storedKey({ ownerId, expiresAt: now }),
        storedKey({ ownerId, expiresAt: now - 60_000 }),
        storedKey({ ownerId, revokedAt: now - 1_000 }),
      ];
      for (const key of owned) await keys.create(key);
      // The same id under an organization, and another user: neither counts.
      await keys.create(
        storedKey({ ownerType: "organization", ownerId, createdBy: uniqueId("admin") }),
      );
      await keys.create(storedKey());
      const user = { type: "user", id: ownerId } as const;
      // Active, disabled, and expiring after now: an expiry at now has passed.
      expect(await keys.countLiveByOwner(user, now)).toBe(3);
      const revoked = await keys.revoke(owned[0]!.id, now);
      expect(revoked?.revokedAt).toBe(now);
      expect(await keys.countLiveByOwner(user, now)).toBe(2);
      expect(await keys.countLiveByOwner(user, now + 1)).toBe(1);
      expect(await keys.countLiveByOwner({ type: "user", id: uniqueId("nobody") }, now)).toBe(0);
      expect(await keys.countLiveByOwner({ type: "organization", id: ownerId }, now)).toBe(1);
    });

    it("keeps a user's and an organization's keys apart when they share an id", async () => {
      const { keys } = await open();
      const sharedId = uniqueId("acme");
      const usersKey = storedKey({ ownerId: sharedId });
      const orgsKey = storedKey({
        ownerType: "organization",
        ownerId: sharedId,
        createdBy: uniqueId("admin"),
        ownerTier: "pro",
      });
      for (const key of [usersKey, orgsKey]) await keys.create(key);
      // Every field round-trips, owner type and creator included.
      expect(await keys.findById(orgsKey.id)).toEqual(orgsKey);
      expect(await keys.findByHash(orgsKey.secretHash)).toEqual(orgsKey);
      expect(await keys.listByOwner({ type: "user", id: sharedId })).toEqual([usersKey]);
      expect(await keys.listByOwner({ type: "organization", id: sharedId })).toEqual([orgsKey]);

      const changed = await keys.setOwnerTier({ type: "organization", id: sharedId }, "free");
      expect(changed).toEqual([{ ...orgsKey, ownerTier: "free", version: 2 }]);
      expect(await keys.findById(usersKey.id)).toEqual(usersKey);
      const revoked = await keys.revoke(orgsKey.id, 9_000);
      expect(revoked).toEqual({ ...orgsKey, ownerTier: "free", revokedAt: 9_000, version: 3 });
    });

    it("pages an owner's keys after a position, in the listing order", async () => {
      const { keys } = await open();
      const ownerId = uniqueId("pager");
      const owner = { type: "user", id: ownerId } as const;
      // Two share a creation time: the id breaks the tie, as in the full listing.
      const created = [3_000, 2_000, 2_000, 1_000, 500].map((createdAt, index) =>
        storedKey({ ownerId, createdAt, id: `${uniqueId("p")}_${index}` }),
      );
      for (const key of created) await keys.create(key);
      const all = await keys.listByOwner(owner);
      expect(all).toHaveLength(5);
      const firstPage = await keys.listByOwner(owner, { limit: 2 });
      expect(firstPage).toEqual(all.slice(0, 2));
      const after = { createdAt: firstPage[1]!.createdAt, id: firstPage[1]!.id };
      expect(await keys.listByOwner(owner, { limit: 2, after })).toEqual(all.slice(2, 4));
      const last = all[3]!;
      expect(
        await keys.listByOwner(owner, { after: { createdAt: last.createdAt, id: last.id } }),
      ).toEqual(all.slice(4));
      expect(await keys.listByOwner(owner, { limit: 10, after: { createdAt: 0, id: "" } })).toEqual(
        [],
      );
    });

    it("updates the given fields of a live key at once, and none of a revoked one", async () => {
      const { keys } = await open();
      const key = storedKey({ scopes: ["profile:read", "profile:write"] });
      await keys.create(key);
      const metadata = { team: "payments", limits: { burst: 3 }, tags: ["ci", "prod"], on: true };
      const updated = await keys.update(key.id, {
        name: "renamed",
        scopes: ["profile:read"],
        metadata,
        disabledAt: 7_000,
      });
      const expected = {
        ...key,
        name: "renamed",
        scopes: ["profile:read"],
        metadata,
        disabledAt: 7_000,
        version: 2,
      };
      expect(updated).toEqual(expected);
      expect(await keys.findById(key.id)).toEqual(expected);
      expect(await keys.findByHash(key.secretHash)).toEqual(expected);
      // Fields left out stay; null clears metadata and enables the key again.
      const cleared = await keys.update(key.id, { metadata: null, disabledAt: null });
      expect(cleared).toEqual({ ...expected, metadata: null, disabledAt: null, version: 3 });
      // An update that changes no field is still a write: the version moves on.
      expect(await keys.update(key.id, {})).toEqual({ ...cleared, version: 4 });
      await keys.revoke(key.id, 8_000);
      expect(await keys.update(key.id, { name: "after revocation" })).toBeNull();
      expect((await keys.findById(key.id))?.name).toBe("renamed");
      expect(await keys.update(uniqueId("missing"), { name: "x" })).toBeNull();
    });

    it("updates by compare-and-set on the version: a stale version changes nothing", async () => {
      const { keys } = await open();
      const key = storedKey({ scopes: ["profile:read", "profile:write"] });
      await keys.create(key);
      const narrowed = await keys.update(key.id, { scopes: ["profile:read"] }, undefined, 1);
      expect(narrowed).toEqual({ ...key, scopes: ["profile:read"], version: 2 });
      // Computed from version 1, which is gone: refused, and the narrowing stays.
      const stale = await keys.update(
        key.id,
        { scopes: ["profile:read", "profile:write"], name: "stale" },
        undefined,
        1,
      );
      expect(stale).toBeNull();
      expect(await keys.findById(key.id)).toEqual(narrowed);
      // Every kind of write moves the version on, so none of them is undone by a stale update.
      await keys.setLimits?.(key.id, { credits: { remaining: 5, grantedAt: 1 } });
      const before = (await keys.findById(key.id))!;
      expect(before.version).toBe(keys.setLimits ? 3 : 2);
      expect(await keys.update(key.id, { limits: null }, undefined, 2)).toBeNull();
      expect(await keys.findById(key.id)).toEqual(before);
      const owner = { type: key.ownerType, id: key.ownerId };
      await keys.setOwnerTier(owner, "pro");
      expect(await keys.update(key.id, { name: "x" }, undefined, before.version)).toBeNull();
      const tiered = (await keys.findById(key.id))!;
      expect(tiered).toEqual({ ...before, ownerTier: "pro", version: before.version + 1 });
      const next = fakeHash();
      await keys.rotate({
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: next,
        hint: "sk_live_…wxyz",
        rotatedAt: 5_000,
      });
      expect(await keys.update(key.id, { name: "x" }, undefined, tiered.version)).toBeNull();
      const rotated = (await keys.findById(key.id))!;
      expect(rotated.version).toBe(tiered.version + 1);
      expect(await keys.update(key.id, { name: "fresh" }, undefined, rotated.version)).toEqual({
        ...rotated,
        name: "fresh",
        version: rotated.version + 1,
      });
      // A revoked key refuses an update at its current version too; a missing one at any.
      const revoked = (await keys.revoke(key.id, 9_000))!;
      expect(revoked.version).toBe(rotated.version + 2);
      expect(await keys.update(key.id, { name: "y" }, undefined, revoked.version)).toBeNull();
      expect(await keys.update(uniqueId("missing"), { name: "y" }, undefined, 1)).toBeNull();
    });

    it("lets exactly one of 50 concurrent updates from one version win", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          keys.update(key.id, { name: `writer ${i}`, scopes: [`scope:${i}`] }, undefined, 1),
        ),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      // The record is exactly the winner's write: no field of a loser got in.
      expect(await keys.findById(key.id)).toEqual(winners[0]);
      expect(winners[0]).toMatchObject({ version: 2 });
      expect(winners[0]!.scopes).toEqual([`scope:${winners[0]!.name.slice("writer ".length)}`]);
    });

    it("rotates at an expected version only: a key changed since is not rotated", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      const renamed = (await keys.update(key.id, { name: "renamed" }, undefined, 1))!;
      const rotation = {
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: fakeHash(),
        hint: "sk_live_…wxyz",
        rotatedAt: 5_000,
      };
      // The hash still matches, the version does not: nothing changes, the old secret still works.
      expect(await keys.rotate({ ...rotation, expectedVersion: 1 })).toBeNull();
      expect(await keys.findByHash(key.secretHash)).toEqual(renamed);
      expect(await keys.findByHash(rotation.secretHash)).toBeNull();
      const rotated = await keys.rotate({ ...rotation, expectedVersion: renamed.version });
      expect(rotated).toMatchObject({ secretHash: rotation.secretHash, version: 3 });
    });

    it("rotates by compare-and-set: the old hash stops resolving at once", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      const next = fakeHash();
      const rotated = await keys.rotate({
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: next,
        hint: "sk_live_…wxyz",
        rotatedAt: 5_000,
      });
      expect(rotated).toEqual({
        ...key,
        secretHash: next,
        hint: "sk_live_…wxyz",
        rotatedAt: 5_000,
        version: 2,
      });
      expect(await keys.findByHash(key.secretHash)).toBeNull();
      expect(await keys.findByHash(next)).toEqual(rotated);
      expect(await keys.findById(key.id)).toEqual(rotated);
    });

    it("keeps the replaced secret findable through a graceful rotation's previous hash", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      const second = fakeHash();
      const graceful = await keys.rotate({
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: second,
        hint: "sk_live_…wxyz",
        rotatedAt: 5_000,
        previousSecretExpiresAt: 65_000,
      });
      const expected = {
        ...key,
        secretHash: second,
        hint: "sk_live_…wxyz",
        rotatedAt: 5_000,
        previousSecretHash: key.secretHash,
        previousSecretExpiresAt: 65_000,
        version: 2,
      };
      expect(graceful).toEqual(expected);
      // Both secrets find the one record; the deadline is the caller's to check.
      expect(await keys.findByHash(key.secretHash)).toEqual(expected);
      expect(await keys.findByHash(second)).toEqual(expected);
      expect(await keys.findById(key.id)).toEqual(expected);

      // A second graceful rotation: the first secret is gone at once, the second is the previous.
      const third = fakeHash();
      const again = await keys.rotate({
        id: key.id,
        expectedHash: second,
        secretHash: third,
        hint: "sk_live_…3333",
        rotatedAt: 6_000,
        previousSecretExpiresAt: 66_000,
      });
      expect(again).toMatchObject({ previousSecretHash: second, previousSecretExpiresAt: 66_000 });
      expect(await keys.findByHash(key.secretHash)).toBeNull();
      expect((await keys.findByHash(second))?.id).toBe(key.id);
      expect((await keys.findByHash(third))?.id).toBe(key.id);
      // The previous secret is no current one: a compare-and-set against it fails.
      const stale = {
        id: key.id,
        expectedHash: second,
        secretHash: fakeHash(),
        hint: "h",
        rotatedAt: 7,
      };
      expect(await keys.rotate(stale)).toBeNull();

      // A rotation without grace ends every earlier secret: only the newest one finds the key.
      const fourth = fakeHash();
      const cut = await keys.rotate({
        id: key.id,
        expectedHash: third,
        secretHash: fourth,
        hint: "sk_live_…4444",
        rotatedAt: 7_000,
      });
      expect(cut).toMatchObject({ previousSecretHash: null, previousSecretExpiresAt: null });
      for (const gone of [key.secretHash, second, third]) {
        expect(await keys.findByHash(gone)).toBeNull();
      }
      expect((await keys.findByHash(fourth))?.id).toBe(key.id);
    });

    it("keeps a graceful rotation's previous secret on the record through revoke, update and tier changes", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      const next = fakeHash();
      await keys.rotate({
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: next,
        hint: "h",
        rotatedAt: 5_000,
        previousSecretExpiresAt: 65_000,
      });
      const previous = { previousSecretHash: key.secretHash, previousSecretExpiresAt: 65_000 };
      expect(await keys.update(key.id, { name: "renamed" })).toMatchObject(previous);
      expect(await keys.setOwnerTier({ type: "user", id: key.ownerId }, "pro")).toMatchObject([
        previous,
      ]);
      // Revoked: the record says so whichever secret finds it, so both fail (the caller's check).
      const revoked = await keys.revoke(key.id, 9_000);
      expect(revoked).toMatchObject({ ...previous, revokedAt: 9_000 });
      expect((await keys.findByHash(key.secretHash))?.revokedAt).toBe(9_000);
      expect((await keys.findByHash(next))?.revokedAt).toBe(9_000);
    });

    it("stores a record created with a previous secret, found by either hash", async () => {
      const { keys } = await open();
      const key = storedKey({ previousSecretHash: fakeHash(), previousSecretExpiresAt: 70_000 });
      await keys.create(key);
      expect(await keys.findById(key.id)).toEqual(key);
      expect(await keys.findByHash(key.previousSecretHash!)).toEqual(key);
      expect(await keys.findByHash(key.secretHash)).toEqual(key);
    });

    it("refuses a rotation with a stale hash, of a revoked key, or of a missing key", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      const rotation = { id: key.id, secretHash: fakeHash(), hint: "h", rotatedAt: 1 };
      expect(await keys.rotate({ ...rotation, expectedHash: fakeHash() })).toBeNull();
      expect(await keys.findById(key.id)).toEqual(key);

      await keys.revoke(key.id, 9_000);
      expect(await keys.rotate({ ...rotation, expectedHash: key.secretHash })).toBeNull();
      expect((await keys.findById(key.id))?.secretHash).toBe(key.secretHash);

      const missing = { ...rotation, id: uniqueId("missing"), expectedHash: fakeHash() };
      expect(await keys.rotate(missing)).toBeNull();
    });

    it("lets exactly one of 100 concurrent rotations win", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      const candidates = Array.from({ length: 100 }, () => fakeHash());
      const results = await Promise.all(
        candidates.map((secretHash, index) =>
          keys.rotate({
            id: key.id,
            expectedHash: key.secretHash,
            secretHash,
            hint: "h",
            rotatedAt: index,
          }),
        ),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      const found = await Promise.all(candidates.map((hash) => keys.findByHash(hash)));
      expect(found.filter((record) => record !== null)).toHaveLength(1);
      expect((await keys.findById(key.id))?.secretHash).toBe(winners[0]!.secretHash);
    });

    it("answers peek, where it answers at all, as findByHash does", async () => {
      const { keys } = await open();
      // `peek` is optional; a store that answers it must never contradict its own lookup.
      const agrees = async (secretHash: string) => {
        const peeked = keys.peek?.(secretHash);
        if (peeked !== undefined) expect(peeked).toEqual(await keys.findByHash(secretHash));
      };
      const key = storedKey();
      await keys.create(key);
      await agrees(key.secretHash);
      await keys.findByHash(key.secretHash); // warms a cache, if there is one
      await agrees(key.secretHash);
      const unknown = fakeHash();
      await keys.findByHash(unknown);
      await agrees(unknown);
      const next = fakeHash();
      await keys.rotate({
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: next,
        hint: "sk_live_…wxyz",
        rotatedAt: 5_000,
      });
      await agrees(key.secretHash);
      await keys.findByHash(next);
      await agrees(next);
      await keys.revoke(key.id, 6_000);
      await agrees(next);
      await keys.findByHash(next);
      await agrees(next);
    });

    it("revokes once and for good", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      const revoked = await keys.revoke(key.id, 7_000);
      expect(revoked).toEqual({ ...key, revokedAt: 7_000, version: 2 });
      expect(await keys.revoke(key.id, 8_000)).toBeNull();
      expect((await keys.findById(key.id))?.revokedAt).toBe(7_000);
      // A revoked key still resolves by hash: the caller decides it is no longer valid.
      expect((await keys.findByHash(key.secretHash))?.revokedAt).toBe(7_000);
      expect(await keys.revoke(uniqueId("missing"), 1)).toBeNull();
    });

    it("lets exactly one of many concurrent revocations win", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => keys.revoke(key.id, 100 + i)),
      );
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    });

    it("records the owner's tier on all their keys, returning only the records it changed", async () => {
      const { keys } = await open();
      const ownerId = uniqueId("owner");
      const first = storedKey({ ownerId, tier: "pro", ownerTier: null });
      const second = storedKey({ ownerId, tier: "free", ownerTier: "pro", revokedAt: 3_000 });
      const someoneElse = storedKey({ tier: "pro", ownerTier: "pro" });
      for (const key of [first, second, someoneElse]) await keys.create(key);

      const owner = { type: "user", id: ownerId } as const;
      const changed = await keys.setOwnerTier(owner, "free");
      expect(changed.map((key) => key.id).sort()).toEqual([first.id, second.id].sort());
      expect(await keys.findById(first.id)).toEqual({ ...first, ownerTier: "free", version: 2 });
      expect(await keys.findByHash(second.secretHash)).toEqual({
        ...second,
        ownerTier: "free",
        version: 2,
      });
      expect(await keys.findById(someoneElse.id)).toEqual(someoneElse);
      // The same tier again changes nothing; an owner without keys is no error.
      expect(await keys.setOwnerTier(owner, "free")).toEqual([]);
      expect(await keys.setOwnerTier({ type: "user", id: uniqueId("nobody") }, "free")).toEqual([]);
      // Other fields survive it, and a later rotation keeps it.
      const next = fakeHash();
      const rotated = await keys.rotate({
        id: first.id,
        expectedHash: first.secretHash,
        secretHash: next,
        hint: "sk_live_…wxyz",
        rotatedAt: 6_000,
      });
      expect(rotated?.ownerTier).toBe("free");
    });

    it("never lets a caller change its state through a record (copies or frozen records)", async () => {
      const { keys } = await open();
      const key = storedKey();
      await keys.create(key);
      (key.scopes as string[]).push("added after create");
      const found = (await keys.findById(key.id))!;
      const attempt = (change: () => void) => {
        try {
          change();
        } catch {
          // A frozen record refuses the change: just as good as a copy.
        }
      };
      attempt(() => (found.scopes as string[]).push("admin"));
      attempt(() => {
        found.name = "changed";
      });
      expect(await keys.findById(key.id)).toEqual({
        ...key,
        scopes: ["profile:read", "profile:write"],
      });
    });

    it("keeps a key's environment through update, rotation and revocation, and reads keys without one as without", async () => {
      const { keys } = await open();
      const ownerId = uniqueId("owner");
      const plain = storedKey({ ownerId, createdAt: 1_000 });
      const placed = storedKey({
        ownerId,
        createdAt: 2_000,
        hint: "sk_test_…abcd",
        environment: "test",
      });
      for (const key of [plain, placed]) await keys.create(key);
      expect(await keys.findById(placed.id)).toEqual(placed);
      expect(await keys.findByHash(placed.secretHash)).toEqual(placed);
      expect(await keys.listByOwner({ type: "user", id: ownerId })).toEqual([placed, plain]);
      // Absent or null: both mean "no environment recorded".
      expect((await keys.findById(plain.id))!.environment ?? null).toBeNull();
      expect((await keys.update(placed.id, { name: "renamed" }))?.environment).toBe("test");
      const rotated = await keys.rotate({
        id: placed.id,
        expectedHash: placed.secretHash,
        secretHash: fakeHash(),
        hint: "sk_test_…wxyz",
        rotatedAt: 5_000,
      });
      expect(rotated?.environment).toBe("test");
      expect((await keys.revoke(placed.id, 6_000))?.environment).toBe("test");
    });

    it("keeps when a key was last enabled (enabledAt) through update, rotation and revocation; reads keys without it as never", async () => {
      const { keys } = await open();
      const ownerId = uniqueId("owner");
      const key = storedKey({ ownerId });
      await keys.create(key);
      expect((await keys.findById(key.id))!.enabledAt ?? null).toBeNull();
      await keys.update(key.id, { disabledAt: 5_000 });
      // Enabled again: the time is stored with the enabling, in the same write.
      const enabled = await keys.update(key.id, { disabledAt: null, enabledAt: 6_000 });
      const expected = { ...key, enabledAt: 6_000, version: 3 };
      expect(enabled).toEqual(expected);
      expect(await keys.findById(key.id)).toEqual(expected);
      expect(await keys.findByHash(key.secretHash)).toEqual(expected);
      expect(await keys.listByOwner({ type: "user", id: ownerId })).toEqual([expected]);
      // Other changes keep it, a disable included (it is the last enabling, not "enabled now").
      expect((await keys.update(key.id, { name: "renamed" }))?.enabledAt).toBe(6_000);
      const disabled = await keys.update(key.id, { disabledAt: 7_000 });
      expect(disabled).toMatchObject({ disabledAt: 7_000, enabledAt: 6_000 });
      // A later enabling replaces it.
      const again = await keys.update(key.id, { disabledAt: null, enabledAt: 8_000 });
      expect(again).toMatchObject({ disabledAt: null, enabledAt: 8_000 });
      const rotated = await keys.rotate({
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: fakeHash(),
        hint: "sk_live_…wxyz",
        rotatedAt: 9_000,
      });
      expect(rotated?.enabledAt).toBe(8_000);
      expect((await keys.revoke(key.id, 10_000))?.enabledAt).toBe(8_000);
      // A record created with one keeps it as given.
      const created = storedKey({ enabledAt: 4_000 });
      await keys.create(created);
      expect(await keys.findById(created.id)).toEqual(created);
    });

    it("lists live keys by id, page after page, revoked ones left out (listLive, when it has it)", async (context) => {
      const { keys } = await open();
      if (!keys.listLive) return context.skip();
      const ownerId = uniqueId("owner");
      const made = [storedKey({ ownerId }), storedKey({ ownerId }), storedKey({ ownerId })];
      for (const key of made) await keys.create(key);
      await keys.revoke(made[1]!.id, 5_000);
      // Other tests' keys share the store: walk it all, then look at ours.
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await keys.listLive(after === undefined ? { limit: 2 } : { limit: 2, after });
        expect(page.length).toBeLessThanOrEqual(2);
        for (const key of page) expect(key.revokedAt).toBeNull();
        seen.push(...page.map((key) => key.id));
        if (page.length < 2) break;
        after = page[page.length - 1]!.id;
      }
      expect([...seen].sort()).toEqual(seen);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toContain(made[0]!.id);
      expect(seen).toContain(made[2]!.id);
      expect(seen).not.toContain(made[1]!.id);
    });

    it("persists what its getters report (read through the probe)", async () => {
      const store = await open();
      const key = storedKey();
      await store.keys.create(key);
      const next = fakeHash();
      await store.keys.rotate({
        id: key.id,
        expectedHash: key.secretHash,
        secretHash: next,
        hint: "h",
        rotatedAt: 3,
      });
      await store.keys.revoke(key.id, 4);
      const raw = await options.probe.rawKey(store, key.id);
      expect(raw).not.toBeNull();
      const values = JSON.stringify(raw);
      expect(values).toContain(next);
      expect(values).not.toContain(key.secretHash);
      expect(await options.probe.rawKey(store, uniqueId("missing"))).toBeNull();
    });
  });
}
