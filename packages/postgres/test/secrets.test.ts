/**
 * No full secret, nor its random part, ever leaves the process towards the database: not in any
 * table, not in any query parameter, not in any NOTIFY payload. Driven end to end through
 * `createKeyward`: creates, verifications (which record usage), rotations and revocations.
 */

import { createKeyward } from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { collectStrings } from "@keyward/testing";
import { afterAll, expect, it } from "vitest";
import { migrate, type PostgresClient, postgresStore } from "../src/index.js";
import { dumpSchema, sharedPGlite, uniqueSchema } from "./support/databases.js";

const pglite = sharedPGlite();
afterAll(() => pglite.close());

it("keeps every secret out of the tables, the query parameters and the notifications", async () => {
  const db = await pglite.get();
  const schema = uniqueSchema("secrets");
  await migrate(db, { schema });
  const parameters: unknown[] = [];
  const notifications: string[] = [];
  const recording = new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (property === "query") {
        return (text: string, params?: unknown[]) => {
          parameters.push(text, params);
          return target.query(text, params);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as PostgresClient;
  const store = postgresStore({ client: recording, schema });
  await store.ready;
  const unlisten = await db.listen(store.channel!, (payload) => notifications.push(payload));
  const keyward = createKeyward({
    store: {
      keys: store.keys,
      events: store.events,
      outbox: store.outbox,
      usage: store.usage,
      rateLimits: memoryRateLimitStore(),
      close: store.close,
    },
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 1_000, window: "1m" } } },
  });

  const ownerId = "owner_secrets";
  const secrets: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const created = await keyward.keys.create({
      ownerId,
      accountTier: "free",
      name: `key ${i}`,
      scopes: ["profile:read"],
      tier: "free",
    });
    secrets.push(created.key);
    ids.push(created.id);
  }
  for (const id of ids.slice(0, 2)) secrets.push((await keyward.keys.rotate(ownerId, id)).key);
  for (const secret of secrets) {
    await keyward.verify(`Bearer ${secret}`, {
      scopes: ["profile:read"],
      route: "GET /profiles/:slug",
    });
  }
  await keyward.keys.revoke(ownerId, ids[3]!);
  await keyward.close(); // writes the buffered usage
  await unlisten();

  const dump = await dumpSchema(db, schema);
  expect(dump.keyward_key_usage?.length).toBeGreaterThan(0);
  expect(notifications.length).toBe(3);
  const places = {
    tables: collectStrings(dump),
    parameters: collectStrings(parameters),
    notifications,
  };
  for (const [place, strings] of Object.entries(places)) {
    for (const secret of secrets) {
      const randomPart = secret.slice("sk_live_".length, "sk_live_".length + 30);
      const leaks = strings.filter((value) => value.includes(secret) || value.includes(randomPart));
      expect(leaks, `a secret reached the database through ${place}`).toEqual([]);
    }
  }
});
