import {
  createKeyward,
  type EventLog,
  type KeyStore,
  type KeywardStore,
  type StoredEvent,
  type StoredKey,
} from "@keyward/core";
import { events } from "@keyward/core/events";
import { createSecretHasher } from "@keyward/core/toolkit";
import { describe, expect, it } from "vitest";
import { collectStrings, fakeHash, storedKey, uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

const scopes = { "profile:read": "Read profiles", "profile:write": "Edit profiles" };
const tiers = {
  free: { rateLimit: { limit: 60, window: "1m" } },
  pro: { rateLimit: { limit: 600, window: "1m" } },
};

/** An event about `key`, as Keyward would build one (ids need not be Keyward's own shape here). */
function storedEvent(key: StoredKey, overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id: uniqueId("evt"),
    type: "key.revoked",
    occurredAt: Date.parse("2026-03-01T00:00:00.000Z"),
    owner: { type: key.ownerType, id: key.ownerId },
    keyId: key.id,
    actor: { type: "user", id: key.createdBy },
    data: {},
    ...overrides,
  } as StoredEvent;
}

type EventStore = KeyStore & { events: EventLog };

/**
 * Events written with key changes (`KeyStore.events`): atomic with the change, never without it,
 * read back as written, newest first, filtered and paged, pruned by age. Runs for a key store that
 * has `events`.
 */
export function eventLogSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("events", () => {
    const openStore = openStores(options);
    const open = async () => {
      const store = await openStore();
      if (!store.events) throw new Error("this store has no `events`");
      // The key store, seen with its store's event log beside it (the methods stay the store's).
      return Object.create(store.keys, { events: { value: store.events } }) as EventStore;
    };
    const owned = (key: StoredKey) => ({ type: key.ownerType, id: key.ownerId });

    it("writes a change's events with it and reads them back exactly, newest first", async () => {
      const keys = await open();
      const key = storedKey({ createdAt: Date.parse("2026-01-01T00:00:00.000Z") });
      const created = storedEvent(key, {
        type: "key.created",
        occurredAt: key.createdAt,
        actor: { type: "operator" },
        data: {
          name: key.name,
          scopes: [...key.scopes],
          tier: key.tier,
          expiresAt: null,
          hint: key.hint,
          createdBy: key.createdBy,
          metadata: { team: "ops", nested: { list: [1, "two", null, true] } },
        },
      });
      await keys.create(key, [created]);
      const at = Date.parse("2026-01-02T00:00:00.000Z");
      const updated = storedEvent(key, {
        type: "key.updated",
        occurredAt: at,
        data: { changes: { name: "renamed", metadata: null } },
      });
      const disabled = storedEvent(key, { type: "key.disabled", occurredAt: at, data: {} });
      await keys.update(key.id, { name: "renamed", metadata: null, disabledAt: at }, [
        updated,
        disabled,
      ]);
      const listed = await keys.events.list({ owner: owned(key), limit: 10 });
      const sameTime = [updated, disabled].sort((a, b) => (a.id < b.id ? 1 : -1));
      expect(listed).toEqual([...sameTime, created]);
    });

    it("writes no event when the change does not happen", async () => {
      const keys = await open();
      const key = storedKey();
      await keys.create(key, [storedEvent(key, { type: "key.created", occurredAt: 1 })]);
      // A duplicate id, and a duplicate hash: the create fails, and so does its event.
      await expect(
        keys.create(storedKey({ id: key.id }), [storedEvent(key, { type: "key.created" })]),
      ).rejects.toBeDefined();
      const sameHash = storedKey({ ownerId: key.ownerId, secretHash: key.secretHash });
      await expect(
        keys.create(sameHash, [storedEvent(sameHash, { type: "key.created" })]),
      ).rejects.toBeDefined();
      // A rotation that lost its compare-and-set.
      const lost = await keys.rotate(
        { id: key.id, expectedHash: fakeHash(), secretHash: fakeHash(), hint: "h", rotatedAt: 5 },
        [storedEvent(key, { type: "key.rotated", data: { previousHint: "a", hint: "b" } })],
      );
      expect(lost).toBeNull();
      // A revocation, then a second one, then an update of the revoked key.
      expect(await keys.revoke(key.id, 10, [storedEvent(key, { occurredAt: 10 })])).not.toBeNull();
      expect(await keys.revoke(key.id, 11, [storedEvent(key, { occurredAt: 11 })])).toBeNull();
      const late = storedEvent(key, { type: "key.updated", data: { changes: { name: "x" } } });
      expect(await keys.update(key.id, { name: "x" }, [late])).toBeNull();
      // Nothing for a key that does not exist.
      const ghost = storedKey();
      expect(await keys.revoke(ghost.id, 12, [storedEvent(ghost)])).toBeNull();

      const listed = await keys.events.list({ owner: owned(key), limit: 10 });
      expect(listed.map((event) => [event.type, event.occurredAt])).toEqual([
        ["key.revoked", 10],
        ["key.created", 1],
      ]);
      expect(await keys.events.list({ owner: owned(ghost), limit: 10 })).toEqual([]);
    });

    it("writes an update's events only when its compare-and-set on the version wins", async () => {
      const keys = await open();
      const key = storedKey();
      await keys.create(key);
      const renamed = (name: string) =>
        storedEvent(key, { type: "key.updated", occurredAt: 20, data: { changes: { name } } });
      const won = renamed("won");
      expect(await keys.update(key.id, { name: "won" }, [won], key.version)).not.toBeNull();
      // Computed from the same version, which is gone: neither the change nor its event is written.
      expect(
        await keys.update(key.id, { name: "lost" }, [renamed("lost")], key.version),
      ).toBeNull();
      const listed = await keys.events.list({ owner: owned(key), keyId: key.id, limit: 10 });
      expect(listed).toEqual([won]);
      expect((await keys.findById(key.id))?.name).toBe("won");
    });

    it("filters by key and by type, keeps owners apart, and pages with a cursor", async () => {
      const keys = await open();
      const sharedId = uniqueId("acme");
      const first = storedKey({ ownerId: sharedId });
      const second = storedKey({ ownerId: sharedId });
      const orgs = storedKey({ ownerType: "organization", ownerId: sharedId, createdBy: "admin" });
      for (const key of [first, second, orgs]) {
        const event = storedEvent(key, { type: "key.created", occurredAt: 1_000 });
        await keys.create(key, [event]);
      }
      for (let i = 0; i < 5; i++) {
        const key = i % 2 === 0 ? first : second;
        const event = storedEvent(
          key,
          i === 4
            ? { type: "key.revoked", occurredAt: 2_000 + i, data: {} }
            : { type: "key.updated", occurredAt: 2_000 + i, data: { changes: { name: `n${i}` } } },
        );
        if (i === 4) await keys.revoke(key.id, 2_000 + i, [event]);
        else await keys.update(key.id, { name: `n${i}` }, [event]);
      }
      const user = { type: "user" as const, id: sharedId };
      const all = await keys.events.list({ owner: user, limit: 100 });
      expect(all.map((event) => event.occurredAt)).toEqual([
        2_004, 2_003, 2_002, 2_001, 2_000, 1_000, 1_000,
      ]);
      expect(all.every((event) => event.owner.type === "user")).toBe(true);
      const org = await keys.events.list({
        owner: { type: "organization", id: sharedId },
        limit: 9,
      });
      expect(org.map((event) => event.keyId)).toEqual([orgs.id]);

      const firsts = await keys.events.list({ owner: user, keyId: first.id, limit: 100 });
      expect(firsts.map((event) => event.occurredAt)).toEqual([2_004, 2_002, 2_000, 1_000]);
      const updates = await keys.events.list({ owner: user, types: ["key.updated"], limit: 100 });
      expect(updates.map((event) => event.occurredAt)).toEqual([2_003, 2_002, 2_001, 2_000]);
      const mixed = await keys.events.list({
        owner: user,
        keyId: second.id,
        types: ["key.created", "key.updated"],
        limit: 100,
      });
      expect(mixed.map((event) => event.occurredAt)).toEqual([2_003, 2_001, 1_000]);

      // Pages of two: each starts after the last event of the one before, and none repeats.
      const paged: StoredEvent[] = [];
      let after: { occurredAt: number; id: string } | undefined;
      for (;;) {
        const page = await keys.events.list({ owner: user, limit: 2, ...(after ? { after } : {}) });
        paged.push(...page);
        if (page.length < 2) break;
        const last = page.at(-1)!;
        after = { occurredAt: last.occurredAt, id: last.id };
      }
      expect(paged).toEqual(all);
      // A type filter that skips most events still fills its page.
      const onlyRevoked = await keys.events.list({ owner: user, types: ["key.revoked"], limit: 1 });
      expect(onlyRevoked.map((event) => event.type)).toEqual(["key.revoked"]);
    });

    it("prunes events older than a time, and only those", async () => {
      const keys = await open();
      const key = storedKey();
      const old = storedEvent(key, { type: "key.created", occurredAt: 1_000 });
      await keys.create(key, [old]);
      const kept = storedEvent(key, { occurredAt: 5_000 });
      await keys.revoke(key.id, 5_000, [kept]);
      // Other tests share the database: prune only what is older than this test's events.
      expect(await keys.events.prune(1_001)).toBeGreaterThanOrEqual(1);
      expect(await keys.events.list({ owner: owned(key), limit: 10 })).toEqual([kept]);
      expect(await keys.events.prune(1_001)).toBe(0);
      expect(await keys.findById(key.id)).not.toBeNull();
    });

    it("appends events with no change, and a once-key only once until it lapses", async () => {
      const keys = await open();
      const key = storedKey();
      const now = Date.parse("2026-03-01T00:00:00.000Z");
      const plain = storedEvent(key, { occurredAt: now - 2 });
      const first = storedEvent(key, { occurredAt: now - 1 });
      const again = storedEvent(key, { occurredAt: now });
      const onceKey = uniqueId("once");
      const until = now + 60_000;
      expect(
        await keys.events.append(
          [{ event: plain }, { event: first, once: { key: onceKey, until } }],
          now,
        ),
      ).toEqual([plain, first]);
      // Held: the same key again (alone, or twice in one call) writes nothing.
      expect(
        await keys.events.append([{ event: again, once: { key: onceKey, until } }], now),
      ).toEqual([]);
      const twiceNew = uniqueId("once");
      const a = storedEvent(key, { occurredAt: now });
      const b = storedEvent(key, { occurredAt: now });
      expect(
        await keys.events.append(
          [
            { event: a, once: { key: twiceNew, until } },
            { event: b, once: { key: twiceNew, until } },
          ],
          now,
        ),
      ).toEqual([a]);
      const listed = await keys.events.list({ owner: owned(key), keyId: key.id, limit: 10 });
      expect(listed.map((event) => event.id).sort()).toEqual([plain.id, first.id, a.id].sort());
      // Lapsed: once `until` has passed, the key can be taken again.
      const later = storedEvent(key, { occurredAt: until });
      expect(
        await keys.events.append(
          [{ event: later, once: { key: onceKey, until: until + 1 } }],
          until,
        ),
      ).toEqual([later]);
    });

    it("lets exactly one of many concurrent appends with one once-key write", async () => {
      const keys = await open();
      const key = storedKey();
      const now = Date.parse("2026-03-01T00:00:00.000Z");
      const onceKey = uniqueId("once");
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          keys.events.append(
            [
              {
                event: storedEvent(key, { occurredAt: now }),
                once: { key: onceKey, until: now + 1_000 },
              },
            ],
            now,
          ),
        ),
      );
      expect(results.flat()).toHaveLength(1);
      expect(await keys.events.list({ owner: owned(key), keyId: key.id, limit: 50 })).toHaveLength(
        1,
      );
    });

    it("forgets lapsed once-keys when pruning, and keeps held ones", async () => {
      const keys = await open();
      const key = storedKey();
      const now = Date.parse("2026-03-01T00:00:00.000Z");
      const lapsing = uniqueId("once");
      const held = uniqueId("once");
      await keys.events.append(
        [
          { event: storedEvent(key, { occurredAt: now }), once: { key: lapsing, until: now + 10 } },
          {
            event: storedEvent(key, { occurredAt: now }),
            once: { key: held, until: now + 10_000 },
          },
        ],
        now,
      );
      await keys.events.prune(now + 20);
      // The held key still refuses, even at a time the pruned one would have been free anyway.
      expect(
        await keys.events.append(
          [
            {
              event: storedEvent(key, { occurredAt: now + 30 }),
              once: { key: held, until: now + 20_000 },
            },
          ],
          now + 30,
        ),
      ).toEqual([]);
      expect(
        await keys.events.append(
          [
            {
              event: storedEvent(key, { occurredAt: now + 30 }),
              once: { key: lapsing, until: now + 20_000 },
            },
          ],
          now + 30,
        ),
      ).toHaveLength(1);
    });

    it("through createKeyward: an event per change, and never a secret or any hash in one", async () => {
      const store = await openStore();
      const seen: unknown[] = [];
      // A clock that moves a second per change, so the listing's time order is the changes' order.
      let now = Date.now();
      const keyward = createKeyward({
        store,
        scopes,
        tiers,
        jwt: false,
        clock: { now: () => (now += 1_000) },
        features: [events({ onEvent: (event) => void seen.push(event), pruneIntervalMs: false })],
      });
      const ownerId = uniqueId("owner");
      const secrets: string[] = [];
      const created = await keyward.keys.create({
        ownerId,
        accountTier: "pro",
        name: "audited",
        scopes: ["profile:read", "profile:write"],
        tier: "free",
        metadata: { team: "ops" },
      });
      secrets.push(created.key);
      secrets.push((await keyward.keys.rotate(ownerId, created.id)).key);
      secrets.push((await keyward.keys.rotate(ownerId, created.id)).key);
      await keyward.keys.update(ownerId, created.id, { name: "renamed", scopes: ["profile:read"] });
      await keyward.keys.update(ownerId, created.id, { enabled: false });
      await keyward.keys.update(ownerId, created.id, { enabled: false }); // no change: no event
      await keyward.keys.update(ownerId, created.id, { enabled: true });
      await keyward.keys.revoke(ownerId, created.id);

      const { data } = await keyward.events.list({ owner: ownerId, keyId: created.id });
      expect(data.map((event) => event.type)).toEqual([
        "key.revoked",
        "key.enabled",
        "key.disabled",
        "key.updated",
        "key.rotated",
        "key.rotated",
        "key.created",
      ]);
      expect(data.every((event) => event.actor.type === "operator")).toBe(true);
      expect(seen).toEqual([...data].reverse());

      const hasher = createSecretHasher();
      const forbidden = secrets.flatMap((secret) => [
        secret,
        secret.slice("sk_live_".length, "sk_live_".length + 30),
        hasher.hash(secret),
      ]);
      // The events as the API shows them: no secret, no hash at all.
      const shown = collectStrings(data);
      expect(shown.some((value) => value.includes(created.id))).toBe(true);
      for (const value of forbidden) {
        expect(
          shown.filter((text) => text.includes(value)),
          "a secret or a hash reached an event",
        ).toEqual([]);
      }
      // As the store persists them: nothing but the key record may hold the current hash, and
      // nothing at all a replaced secret's hash (the walk covers every row or field written).
      const persisted = collectStrings(await options.probe.dump(store));
      const current = hasher.hash(secrets.at(-1)!);
      expect(persisted.some((value) => value.includes(current))).toBe(true);
      const replaced = forbidden.filter((value) => value !== current);
      for (const value of replaced) {
        expect(
          persisted.filter((text) => text.includes(value)),
          "a secret or a replaced hash reached storage",
        ).toEqual([]);
      }
      const persistedEvents = persisted.filter((text) =>
        data.some((event) => text.includes(event.id)),
      );
      expect(persistedEvents.filter((text) => text.includes(current))).toEqual([]);
      await keyward.close();
    });

    it("through createKeyward: as many rotation events as rotations that succeeded", async () => {
      const store = await openStore();
      const keyward = createKeyward({
        store,
        scopes,
        tiers,
        jwt: false,
        features: [events({ pruneIntervalMs: false })],
      });
      const ownerId = uniqueId("owner");
      const created = await keyward.keys.create({
        ownerId,
        accountTier: "free",
        name: "contended",
        scopes: ["profile:read"],
        tier: "free",
      });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 30 }, () => keyward.keys.rotate(ownerId, created.id)),
      );
      const succeeded = outcomes.filter((outcome) => outcome.status === "fulfilled");
      const { data } = await keyward.events.list({
        owner: ownerId,
        types: ["key.rotated"],
        limit: 100,
      });
      expect(data).toHaveLength(succeeded.length);
      // Each rotation's event names the secret it replaced: one chain from the first secret,
      // with no gap and no fork (rotations in one millisecond list in id order, not in turn).
      const next = new Map<string, string>();
      for (const event of data) {
        if (event.type !== "key.rotated") throw new Error("unreachable");
        expect(next.has(event.data.previousHint), "two rotations replaced one secret").toBe(false);
        next.set(event.data.previousHint, event.data.hint);
      }
      let hint = created.hint;
      for (let step = 0; step < data.length; step++) {
        expect(next.has(hint), "the chain of rotations has a gap").toBe(true);
        hint = next.get(hint)!;
      }
      await keyward.close();
    });
  });
}
