import type {
  EventLog,
  KeyStore,
  KeywardStore,
  StoredEvent,
  StoredKey,
  WebhookOutbox,
} from "@keyward/core";
import { webhookOutboxOf } from "@keyward/core/toolkit";
import { describe, expect, it } from "vitest";
import { collectStrings, storedKey, uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

type OutboxStore = KeyStore & { events: EventLog & { outbox: WebhookOutbox } };

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** An event id of Keyward's own shape (`evt_` + 24 base62), which delivery ids are made from. */
function eventId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `evt_${Array.from(bytes, (byte) => base62[byte % 62]).join("")}`;
}

/** A unique endpoint id: the outbox may be shared with other tests (one PostgreSQL schema). */
const endpointId = (label: string) =>
  uniqueId(label)
    .replace(/[^A-Za-z0-9_-]/g, "")
    .slice(0, 60);

function storedEvent(key: StoredKey, overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id: eventId(),
    type: "key.created",
    occurredAt: key.createdAt,
    owner: { type: key.ownerType, id: key.ownerId },
    keyId: key.id,
    actor: { type: "operator" },
    data: {
      name: key.name,
      scopes: [...key.scopes],
      tier: key.tier,
      expiresAt: null,
      hint: key.hint,
      createdBy: key.createdBy,
    },
    ...overrides,
  } as StoredEvent;
}

/**
 * The webhook outbox of an event log (`EventLog.outbox`): every stored event dispatched once into
 * one delivery per matching route, claims exclusive under leases that expire, outcomes recorded
 * only by the lease holder, retries, dead letters, listings and redelivery, pruning. The outbox may
 * hold other tests' deliveries (a shared database): every check filters by its own endpoint ids.
 */
export function webhookOutboxSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("webhook outbox", () => {
    /** Dispatches until nothing is left, as the deliverer does. */
    const dispatchAll = async (
      outbox: WebhookOutbox,
      routes: Parameters<WebhookOutbox["dispatch"]>[0],
      now: number,
    ) => {
      let total = 0;
      for (;;) {
        const taken = await outbox.dispatch(routes, 100, now);
        total += taken;
        if (taken < 100) return total;
      }
    };
    /** Claims everything due at `now`, keeping only the deliveries to `endpoints`. */
    const claimAll = async (
      outbox: WebhookOutbox,
      now: number,
      lease: string,
      endpoints: string[],
      leaseMs = 60_000,
    ) => {
      const mine = [];
      for (;;) {
        const claimed = await outbox.claim({
          now,
          leaseMs,
          limit: 50,
          lease,
          endpointIds: endpoints,
        });
        expect(claimed.every((one) => endpoints.includes(one.delivery.endpointId))).toBe(true);
        mine.push(...claimed);
        if (claimed.length < 50) return mine;
      }
    };
    const openStore = openStores(options);
    const open = async () => {
      const store = await openStore();
      // A memory store has no `outbox` part: its outbox is built on its event log when asked for.
      const outbox = webhookOutboxOf(store);
      if (!store.events || !outbox) throw new Error("this store has no `events` or `outbox`");
      // Another test's events still undispatched (a shared database) go to an endpoint of their
      // own first, so that each test's dispatch takes only the events it wrote.
      await dispatchAll(outbox, [{ endpointId: endpointId("drain") }], Date.now());
      // The key store, seen with its store's event log and outbox beside it.
      const events = Object.create(store.events, { outbox: { value: outbox } });
      return Object.create(store.keys, { events: { value: events } }) as OutboxStore;
    };
    const createWithEvent = async (keys: OutboxStore, overrides: Partial<StoredEvent> = {}) => {
      const key = storedKey();
      const event = storedEvent(key, overrides);
      await keys.create(key, [event]);
      return { key, event };
    };

    it("dispatches each stored event once, into one pending delivery per matching route", async () => {
      const keys = await open();
      const all = endpointId("all");
      const revocations = endpointId("revoked");
      const routes = [{ endpointId: all }, { endpointId: revocations, types: ["key.revoked"] }];
      const { key, event: created } = await createWithEvent(keys);
      const revoked = storedEvent(key, {
        type: "key.revoked",
        occurredAt: key.createdAt + 1,
        data: {},
      });
      expect(await keys.revoke(key.id, key.createdAt + 1, [revoked])).not.toBeNull();
      const now = Date.now();
      expect(await dispatchAll(keys.events.outbox, routes, now)).toBeGreaterThanOrEqual(2);
      // A second dispatch finds nothing of ours left.
      await dispatchAll(keys.events.outbox, routes, now);

      const listed = [
        ...(await keys.events.outbox.list({ endpointId: all, limit: 100 })),
        ...(await keys.events.outbox.list({ endpointId: revocations, limit: 100 })),
      ];
      const ours = listed.filter((d) => d.eventId === created.id || d.eventId === revoked.id);
      expect(ours.map((d) => [d.eventId, d.endpointId]).sort()).toEqual(
        [
          [created.id, all],
          [revoked.id, all],
          [revoked.id, revocations],
        ].sort(),
      );
      for (const delivery of ours) {
        expect(delivery).toMatchObject({
          status: "pending",
          attempts: 0,
          nextAttemptAt: now,
          lastAttemptAt: null,
          lastResponseStatus: null,
          lastError: null,
          deliveredAt: null,
        });
        expect(delivery.id).toBe(`whd_${delivery.eventId.slice(4)}_${delivery.endpointId}`);
        expect(delivery.occurredAt).toBe(
          delivery.eventId === created.id ? created.occurredAt : revoked.occurredAt,
        );
      }
    });

    it("dispatches events appended with no key change, once-keys included, like any other", async () => {
      const keys = await open();
      const endpoint = endpointId("appended");
      const key = storedKey();
      const now = Date.now();
      const plain = storedEvent(key, { type: "key.revoked", occurredAt: now, data: {} });
      const onceOnly = storedEvent(key, { type: "key.revoked", occurredAt: now, data: {} });
      const refused = storedEvent(key, { type: "key.revoked", occurredAt: now, data: {} });
      const onceKey = uniqueId("once");
      const written = await keys.events.append(
        [{ event: plain }, { event: onceOnly, once: { key: onceKey, until: now + 60_000 } }],
        now,
      );
      expect(written.map((event) => event.id)).toEqual([plain.id, onceOnly.id]);
      // The once-key is held: this one is not written, so it is not delivered either.
      expect(
        await keys.events.append(
          [{ event: refused, once: { key: onceKey, until: now + 60_000 } }],
          now,
        ),
      ).toEqual([]);
      await dispatchAll(keys.events.outbox, [{ endpointId: endpoint }], now);
      // Other tests' events may be dispatched too (a shared database): look at these three only.
      const ours = (eventId: string) => [plain.id, onceOnly.id, refused.id].includes(eventId);
      const listed = await keys.events.outbox.list({ endpointId: endpoint, limit: 1000 });
      expect(
        listed
          .map((d) => d.eventId)
          .filter(ours)
          .sort(),
      ).toEqual([plain.id, onceOnly.id].sort());
      const claimed = (await claimAll(keys.events.outbox, now, "appended", [endpoint])).filter(
        (one) => ours(one.event.id),
      );
      expect(claimed.map((one) => one.event).sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
        [plain, onceOnly].sort((a, b) => (a.id < b.id ? -1 : 1)),
      );
    });

    it("dispatches an event stored after an earlier dispatch, even with an older time (no cursor)", async () => {
      const keys = await open();
      const endpoint = endpointId("late");
      const now = Date.now();
      await createWithEvent(keys, { occurredAt: Date.parse("2026-02-01T00:00:00.000Z") });
      await dispatchAll(keys.events.outbox, [{ endpointId: endpoint }], now);
      // Written later, stamped earlier: what a transaction that commits late looks like.
      const { event: late } = await createWithEvent(keys, {
        occurredAt: Date.parse("2026-01-01T00:00:00.000Z"),
      });
      await dispatchAll(keys.events.outbox, [{ endpointId: endpoint }], now);
      const listed = await keys.events.outbox.list({ endpointId: endpoint, limit: 100 });
      expect(listed.map((d) => d.eventId)).toContain(late.id);
    });

    it("hands each due delivery to exactly one of several concurrent claims, with the event", async () => {
      const keys = await open();
      const endpoint = endpointId("race");
      const written: StoredEvent[] = [];
      for (let i = 0; i < 30; i++) written.push((await createWithEvent(keys)).event);
      const now = Date.now();
      // Concurrent dispatches too: each event is taken by one of them.
      await Promise.all(
        [1, 2, 3].map(() => dispatchAll(keys.events.outbox, [{ endpointId: endpoint }], now)),
      );
      // A claim for other endpoints never takes these (an instance claims what it can send).
      const elsewhere = await keys.events.outbox.claim({
        now,
        leaseMs: 60_000,
        limit: 1000,
        lease: "elsewhere",
        endpointIds: [endpointId("other")],
      });
      expect(elsewhere).toEqual([]);
      const claims = await Promise.all(
        ["a", "b", "c", "d"].map((lease) =>
          claimAll(keys.events.outbox, now, `lease-${lease}`, [endpoint]),
        ),
      );
      const claimedIds = claims.flat().map((one) => one.delivery.eventId);
      expect(claimedIds.sort()).toEqual(written.map((event) => event.id).sort());
      const one = claims.flat().find((claimed) => claimed.event.id === written[0]!.id)!;
      expect(one.event).toEqual(written[0]);
      expect(one.delivery).toMatchObject({
        status: "pending",
        attempts: 1,
        lastAttemptAt: now,
        nextAttemptAt: now + 60_000,
      });
      // Leased: nothing more to claim until the lease ends.
      expect(await claimAll(keys.events.outbox, now + 59_999, "again", [endpoint])).toEqual([]);
    });

    it("records an outcome only for the lease holder; an expired lease passes to the next claim", async () => {
      const keys = await open();
      const endpoint = endpointId("lease");
      const { event } = await createWithEvent(keys);
      const now = Date.now();
      await dispatchAll(keys.events.outbox, [{ endpointId: endpoint }], now);
      const [first] = await claimAll(keys.events.outbox, now, "first", [endpoint], 1_000);
      expect(first?.event.id).toBe(event.id);
      const id = first!.delivery.id;
      expect(
        await keys.events.outbox.settle(id, "someone-else", {
          status: "delivered",
          at: now,
          responseStatus: 200,
        }),
      ).toBe(false);
      // The first claimer "died": its lease ends and another instance takes the delivery over.
      const [second] = await claimAll(keys.events.outbox, now + 1_000, "second", [endpoint], 1_000);
      expect(second?.delivery).toMatchObject({ id, attempts: 2 });
      expect(
        await keys.events.outbox.settle(id, "first", {
          status: "delivered",
          at: now + 1_001,
          responseStatus: 200,
        }),
      ).toBe(false);
      expect(
        await keys.events.outbox.settle(id, "second", {
          status: "delivered",
          at: now + 1_002,
          responseStatus: 204,
        }),
      ).toBe(true);
      // Settled once: the same lease cannot settle it again, and it is never claimed again.
      expect(
        await keys.events.outbox.settle(id, "second", {
          status: "dead",
          at: now + 1_003,
          responseStatus: null,
          error: "x",
        }),
      ).toBe(false);
      expect(await claimAll(keys.events.outbox, now + 10_000_000, "third", [endpoint])).toEqual([]);
      const [listed] = await keys.events.outbox.list({ endpointId: endpoint, limit: 10 });
      expect(listed).toMatchObject({
        id,
        status: "delivered",
        attempts: 2,
        deliveredAt: now + 1_002,
        lastResponseStatus: 204,
        lastError: null,
        nextAttemptAt: null,
      });
    });

    it("retries at the time given, then dead-letters; lists by status; redelivers", async () => {
      const keys = await open();
      const endpoint = endpointId("retry");
      const { event } = await createWithEvent(keys);
      const now = Date.now();
      await dispatchAll(keys.events.outbox, [{ endpointId: endpoint }], now);
      const [claimed] = await claimAll(keys.events.outbox, now, "l1", [endpoint]);
      const id = claimed!.delivery.id;
      expect(
        await keys.events.outbox.settle(id, "l1", {
          status: "pending",
          at: now + 5,
          nextAttemptAt: now + 500,
          responseStatus: 500,
          error: "HTTP 500",
        }),
      ).toBe(true);
      expect(
        (await keys.events.outbox.list({ endpointId: endpoint, status: "pending", limit: 10 }))[0],
      ).toMatchObject({
        id,
        attempts: 1,
        nextAttemptAt: now + 500,
        lastResponseStatus: 500,
        lastError: "HTTP 500",
      });
      expect(await claimAll(keys.events.outbox, now + 499, "early", [endpoint])).toEqual([]);
      const [retry] = await claimAll(keys.events.outbox, now + 500, "l2", [endpoint]);
      expect(retry?.delivery).toMatchObject({ id, attempts: 2 });
      expect(
        await keys.events.outbox.settle(id, "l2", {
          status: "dead",
          at: now + 600,
          responseStatus: null,
          error: "no answer within 10 ms",
        }),
      ).toBe(true);
      const dead = await keys.events.outbox.list({
        status: "dead",
        endpointId: endpoint,
        limit: 10,
      });
      expect(dead).toEqual([
        expect.objectContaining({
          id,
          eventId: event.id,
          status: "dead",
          attempts: 2,
          nextAttemptAt: null,
          lastResponseStatus: null,
          lastError: "no answer within 10 ms",
        }),
      ]);
      expect(
        await keys.events.outbox.list({ status: "pending", endpointId: endpoint, limit: 10 }),
      ).toEqual([]);
      expect(await claimAll(keys.events.outbox, now + 10_000_000, "never", [endpoint])).toEqual([]);

      const again = await keys.events.outbox.redeliver(id, now + 700);
      expect(again).toMatchObject({ id, status: "pending", attempts: 0, nextAttemptAt: now + 700 });
      expect(
        await keys.events.outbox.list({ status: "dead", endpointId: endpoint, limit: 10 }),
      ).toEqual([]);
      // A pending delivery is left as it is.
      expect(await keys.events.outbox.redeliver(id, now + 800)).toMatchObject({
        nextAttemptAt: now + 700,
      });
      const [third] = await claimAll(keys.events.outbox, now + 700, "l3", [endpoint]);
      expect(third?.delivery).toMatchObject({ id, attempts: 1 });
      expect(
        await keys.events.outbox.redeliver(`whd_${"0".repeat(24)}_${endpoint}`, now),
      ).toBeUndefined();
    });

    it("lists newest first, filtered, a page at a time", async () => {
      const keys = await open();
      const a = endpointId("pa");
      const b = endpointId("pb");
      const base = Date.parse("2026-04-01T00:00:00.000Z");
      const events: StoredEvent[] = [];
      for (let i = 0; i < 5; i++)
        events.push((await createWithEvent(keys, { occurredAt: base + (i % 3) })).event);
      await dispatchAll(keys.events.outbox, [{ endpointId: a }, { endpointId: b }], Date.now());
      const expected = events
        .map((event) => ({ occurredAt: event.occurredAt, id: `whd_${event.id.slice(4)}_${a}` }))
        .sort((x, y) => y.occurredAt - x.occurredAt || (x.id < y.id ? 1 : -1))
        .map((entry) => entry.id);
      const pages: string[] = [];
      let after: { occurredAt: number; id: string } | undefined;
      for (;;) {
        const page = await keys.events.outbox.list({
          endpointId: a,
          limit: 2,
          ...(after ? { after } : {}),
        });
        pages.push(...page.map((d) => d.id));
        const last = page.at(-1);
        if (page.length < 2 || !last) break;
        after = { occurredAt: last.occurredAt, id: last.id };
      }
      // Other tests' events dispatched by this test's call may be listed too (a shared database).
      expect(pages.filter((id) => expected.includes(id))).toEqual(expected);
      expect(new Set(pages).size).toBe(pages.length);
      const pendingOfA = await keys.events.outbox.list({
        status: "pending",
        endpointId: a,
        limit: 1000,
      });
      expect(
        pendingOfA
          .map((d) => d.id)
          .filter((id) => expected.includes(id))
          .sort(),
      ).toEqual([...expected].sort());
    });

    it("prunes deliveries and marks with their events", async () => {
      const keys = await open();
      const endpoint = endpointId("prune");
      const old = Date.parse("2000-01-01T00:00:00.000Z") + Math.floor(Math.random() * 1_000_000);
      const { event } = await createWithEvent(keys, { occurredAt: old });
      const { event: undispatched } = await (async () => {
        const now = Date.now();
        await dispatchAll(keys.events.outbox, [{ endpointId: endpoint }], now);
        return createWithEvent(keys, { occurredAt: old });
      })();
      expect(await keys.events.prune(old + 1)).toBeGreaterThanOrEqual(2);
      expect(await keys.events.outbox.list({ endpointId: endpoint, limit: 10 })).toEqual([]);
      await dispatchAll(keys.events.outbox, [{ endpointId: endpoint }], Date.now());
      expect(await keys.events.outbox.list({ endpointId: endpoint, limit: 10 })).toEqual([]);
      expect(
        await claimAll(keys.events.outbox, Date.now() + 10_000_000, "pruned", [endpoint]),
      ).toEqual([]);
      expect([event.id, undispatched.id]).toHaveLength(2);
    });

    it("keeps no secret and no hash in a delivery", async () => {
      const keys = await open();
      const endpoint = endpointId("secret");
      const { key } = await createWithEvent(keys);
      await dispatchAll(keys.events.outbox, [{ endpointId: endpoint }], Date.now());
      const listed = await keys.events.outbox.list({ endpointId: endpoint, limit: 100 });
      const strings = collectStrings(listed);
      expect(strings.some((text) => text.includes(key.secretHash))).toBe(false);
    });
  });
}
