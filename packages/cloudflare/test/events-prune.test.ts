/**
 * The event log's prune on the Durable Objects store runs in batches of 500 events, each one call to
 * the `keys` object (which serves nothing else while a call runs): 1,100 old events beside two
 * recent ones, all 1,100 removed over three calls, the recent ones kept, the old ones' webhook
 * deliveries gone with them, and a second prune finds nothing. In workerd through Miniflare.
 */
import type { StoredEvent } from "@keyward/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cloudflareStore, type ObjectNamespace } from "../src/index.js";
import { startWorkerd, type Workerd } from "./support/miniflare.js";

let workerd: Workerd;
beforeAll(async () => {
  workerd = await startWorkerd();
}, 60_000);
afterAll(async () => {
  await workerd?.dispose();
});

const dayMs = 24 * 60 * 60 * 1000;

it("prunes old events in batches, their deliveries with them, and keeps the recent ones", async () => {
  // The calls the store makes to the objects, by method (the path of each stub call).
  const calls: string[] = [];
  const namespace = await workerd.namespace();
  const counted: ObjectNamespace = {
    idFromName: (name) => namespace.idFromName(name),
    get: (id) => {
      const stub = namespace.get(id);
      return {
        fetch(input, init) {
          calls.push(new URL(String(input)).pathname.slice(1));
          return stub.fetch(input, init);
        },
      };
    },
  };
  const store = cloudflareStore({ namespace: counted, prefix: "evprune_" });
  const events = store.events;
  const now = Date.now();
  const owner = { type: "user" as const, id: "u1" };
  const event = (index: number, occurredAt: number): StoredEvent =>
    ({
      id: `evt_${index}`,
      type: "key.created",
      occurredAt,
      owner,
      keyId: `key_${index % 7}`,
      actor: { type: "user", id: "u1" },
      data: {},
    }) as StoredEvent;
  // 1,100 events 40 to 95 days old, in appends of 100; then two of today.
  for (let chunk = 0; chunk < 11; chunk++) {
    await events.append(
      Array.from({ length: 100 }, (_, offset) => {
        const index = chunk * 100 + offset;
        return { event: event(index, now - (40 + (index % 56)) * dayMs) };
      }),
      now,
    );
  }
  await events.append([{ event: event(5_000, now) }, { event: event(5_001, now) }], now);
  // Their deliveries: one per event to an endpoint that takes every type.
  const outbox = store.outbox;
  let dispatched = 0;
  for (;;) {
    const taken = await outbox.dispatch([{ endpointId: "hook" }], 500, now);
    dispatched += taken;
    if (taken === 0) break;
  }
  expect(dispatched).toBe(1_102);
  expect(await outbox.list({ limit: 2_000 })).toHaveLength(1_102);

  calls.length = 0;
  expect(await events.prune(now - 30 * dayMs)).toBe(1_100);
  // 500, 500, 100: three calls, the short one ending it.
  expect(calls.filter((method) => method === "events.prune")).toHaveLength(3);
  const left = await events.list({ owner, limit: 10 });
  expect(left.map((each) => each.id).sort()).toEqual(["evt_5000", "evt_5001"]);
  expect(await events.prune(now - 30 * dayMs)).toBe(0);
  // The old events' deliveries went with them.
  const deliveries = await outbox.list({ limit: 2_000 });
  expect(deliveries.map((each) => each.eventId).sort()).toEqual(["evt_5000", "evt_5001"]);
}, 60_000);
