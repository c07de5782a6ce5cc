import {
  createKeyward,
  type KeyStore,
  type KeywardEvent,
  type KeywardStore,
  manualClock,
  type StoredKey,
} from "@keyward/core";
import { events } from "@keyward/core/events";
import { describe, expect, it } from "vitest";
import { storedKey, uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

const dayMs = 86_400_000;
const scopes = { "profile:read": "Read profiles" };

type ExpiringStore = KeyStore & { listExpiring: NonNullable<KeyStore["listExpiring"]> };

/**
 * A window of expiry times no other test of a shared database uses: a random day far in the future
 * (keys of other runs may stay in the database, so every test reads a window of its own).
 */
function privateWindowStart(): number {
  const days = crypto.getRandomValues(new Uint32Array(1))[0]! % 1_000_000;
  return Date.UTC(2200, 0, 1) + days * dayMs;
}

/**
 * Time- and usage-based events: the key store's `listExpiring` (window, order, pages, revoked keys
 * left out), then `key.expiring`, `quota.threshold` and `credits.exhausted` through two Keyward
 * instances that share the store, on a fake clock: each is written once, whichever instance sees it.
 * Runs for a key store that has `events` and `listExpiring`.
 */
export function timedEventsSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("time- and usage-based events", () => {
    const open = openStores(options);
    const keysOf = (store: S) => {
      if (!store.keys.listExpiring) throw new Error("this key store has no `listExpiring`");
      return store.keys as ExpiringStore;
    };

    it("listExpiring: the keys not revoked that expire in the window, soonest first, paged", async () => {
      const keys = keysOf(await open());
      const from = privateWindowStart();
      const to = from + 10 * dayMs;
      const make = async (expiresAt: number | null, overrides: Partial<StoredKey> = {}) => {
        const key = storedKey({ expiresAt, ...overrides });
        await keys.create(key);
        return key;
      };
      // Two with one expiry (ordered by id), a disabled one (still listed), both window edges.
      const first = await make(from);
      const sameA = await make(from + dayMs);
      const sameB = await make(from + dayMs);
      const disabled = await make(from + 2 * dayMs, { disabledAt: from - dayMs });
      const last = await make(to - 1);
      const revoked = await make(from + 3 * dayMs);
      await keys.revoke(revoked.id, from - dayMs);
      await make(to); // the window's end is exclusive
      await make(from - 1); // before it
      await make(null); // never expires
      const revokedAtCreate = await make(from + 4 * dayMs, { revokedAt: from - dayMs });

      const same = [sameA, sameB].sort((a, b) => (a.id < b.id ? -1 : 1));
      const expected = [first, ...same, disabled, last].map((key) => key.id);
      const all = await keys.listExpiring({ from, to, limit: 100 });
      expect(all.map((key) => key.id)).toEqual(expected);
      expect(all.map((key) => key.id)).not.toContain(revokedAtCreate.id);
      // Records come back whole, as findById reads them.
      expect(all[0]).toEqual(await keys.findById(first.id));

      // Page by page, one key at a time, each after the last one's position.
      const paged: string[] = [];
      let after: { expiresAt: number; id: string } | undefined;
      for (let page = 0; page < 10; page++) {
        const found = await keys.listExpiring({ from, to, limit: 2, ...(after ? { after } : {}) });
        paged.push(...found.map((key) => key.id));
        if (found.length < 2) break;
        const tail = found.at(-1)!;
        after = { expiresAt: tail.expiresAt!, id: tail.id };
      }
      expect(paged).toEqual(expected);

      // Revoking takes a key out; a narrower window keeps only what is in it.
      await keys.revoke(sameA.id, from);
      const narrow = await keys.listExpiring({
        from: from + dayMs,
        to: from + 2 * dayMs,
        limit: 10,
      });
      expect(narrow.map((key) => key.id)).toEqual([sameB.id]);
    });

    it("two instances on one store: each key.expiring, quota.threshold and credits.exhausted is written once", async () => {
      const store = await open();
      keysOf(store);
      // Fake time, far from any other test's quotas: the 10th of a month of its own.
      const start = Date.UTC(2100 + (privateWindowStart() % 500), 4, 10);
      const clock = manualClock(start);
      const heard: KeywardEvent[] = [];
      const instance = () =>
        createKeyward({
          store,
          scopes,
          tiers: {
            free: {
              rateLimit: { limit: 1_000, window: "1m" },
              quota: { limit: 10, period: "month" },
            },
          },
          jwt: false,
          clock,
          logger: false,
          features: [
            events({
              pruneIntervalMs: false,
              expiring: { scanIntervalMs: false },
              onEvent: (event) => void heard.push(event),
            }),
          ],
        });
      const a = instance();
      const b = instance();
      const ownerId = uniqueId("owner");
      const create = (days: number | null) =>
        a.keys.create({
          ownerId,
          accountTier: "free",
          name: "timed",
          scopes: ["profile:read"],
          tier: "free",
          ...(days === null ? {} : { expiresAt: new Date(start + days * dayMs) }),
        });
      const soon = await create(3);
      const later = await create(30);
      const gone = await create(2);
      await a.keys.revoke(ownerId, gone.id);
      const forever = await create(null);
      const ofType = async (type: KeywardEvent["type"]) =>
        (await a.events.list({ owner: ownerId, types: [type] })).data;

      // key.expiring: the key within 7 days, once, whichever instance scans first.
      const scans = await Promise.all([a.events.scanExpiring(), b.events.scanExpiring()]);
      expect(scans.map((scan) => scan.written).sort()).toEqual([0, 1]);
      expect(await b.events.scanExpiring()).toEqual({ written: 0 });
      const [expiring] = await ofType("key.expiring");
      expect(expiring).toMatchObject({
        keyId: soon.id,
        owner: { type: "user", id: ownerId },
        actor: { type: "system" },
        data: { expiresAt: new Date(start + 3 * dayMs).toISOString() },
      });
      // 24 days on, the other key is within its lead time; the first has expired.
      clock.advance(24 * dayMs);
      expect((await b.events.scanExpiring()).written).toBe(1);
      expect((await a.events.scanExpiring()).written).toBe(0);
      expect((await ofType("key.expiring")).map((event) => event.keyId)).toEqual([
        later.id,
        soon.id,
      ]);

      // quota.threshold: 10 a month for the owner; 80 % at the 8th request, 100 % at the 10th,
      // from both instances at once.
      const verifyAll = (count: number, key: string, cost?: number) =>
        Promise.all(
          Array.from({ length: count }, (_, i) =>
            (i % 2 === 0 ? a : b).verify(`Bearer ${key}`, {
              route: "GET /x",
              ...(cost === undefined ? {} : { cost }),
            }),
          ),
        );
      const results = await verifyAll(12, forever.key);
      expect(results.filter((result) => result.ok)).toHaveLength(10);
      await expect.poll(async () => (await ofType("quota.threshold")).length).toBe(2);
      const thresholds = await ofType("quota.threshold");
      const period = new Date(clock.now());
      const resetsAt = new Date(
        Date.UTC(period.getUTCFullYear(), period.getUTCMonth() + 1, 1),
      ).toISOString();
      // One fake instant for all: the listing orders them by id, so compare by threshold.
      const byThreshold = thresholds
        .map((event) => event.data as { threshold: number })
        .sort((x, y) => x.threshold - y.threshold);
      expect(byThreshold).toEqual([
        { threshold: 80, limit: 10, used: 8, period: "month", resetsAt },
        { threshold: 100, limit: 10, used: 10, period: "month", resetsAt },
      ]);
      expect(thresholds.every((event) => event.keyId === forever.id)).toBe(true);

      // A new month: the quota starts over, and so do its thresholds.
      clock.set(Date.parse(resetsAt) + 1_000);
      await verifyAll(8, forever.key);
      await expect.poll(async () => (await ofType("quota.threshold")).length).toBe(3);

      // credits.exhausted: the key of another owner, 3 credits without a refill, spent 2 at a time.
      const spenderOwner = uniqueId("owner");
      const spender = await a.keys.create({
        ownerId: spenderOwner,
        accountTier: "free",
        name: "credits",
        scopes: ["profile:read"],
        tier: "free",
      });
      await a.keys.setLimits(spender.id, { quota: false, credits: { remaining: 6 } });
      const spent = await verifyAll(5, spender.key, 2);
      expect(spent.filter((result) => result.ok)).toHaveLength(3);
      const exhausted = async () =>
        (await a.events.list({ owner: spenderOwner, types: ["credits.exhausted"] })).data;
      await expect.poll(async () => (await exhausted()).length).toBe(1);
      expect((await exhausted())[0]).toMatchObject({
        keyId: spender.id,
        actor: { type: "system" },
        data: { refillsAt: null },
      });
      // A new grant can be exhausted again.
      await a.keys.setLimits(spender.id, { credits: { remaining: 1 } });
      await verifyAll(2, spender.key);
      await expect.poll(async () => (await exhausted()).length).toBe(2);

      // Every instance together told onEvent about each event once.
      const written = [
        ...(await a.events.list({ owner: ownerId })).data,
        ...(await a.events.list({ owner: spenderOwner })).data,
      ].filter((event) => event.actor.type === "system");
      // Two key.expiring, three quota.threshold (80 and 100, then 80 of the next month), two credits.exhausted.
      expect(written).toHaveLength(2 + 3 + 2);
      const heardSystem = heard.filter((event) => event.actor.type === "system");
      expect(heardSystem.map((event) => event.id).sort()).toEqual(
        written.map((event) => event.id).sort(),
      );
      await b.close();
      await a.close();
    });
  });
}
