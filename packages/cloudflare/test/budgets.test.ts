/**
 * Budgets on Durable Objects: `@keyward/testing`'s budgets suite on `cloudflareStore` and its
 * `holds` object (limits per owner and per key); then two Worker services (two isolates) reserving
 * and settling at once on one namespace, credits and an owner's budget exact across both; and holds
 * left unsettled given back by the `holds` object's alarm at their TTL, with no Keyward running.
 */
import { createKeyward, type KeywardConfig } from "@keyward/core";
import { describeBudgets } from "@keyward/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudflareStore } from "../src/index.js";
import { startWorkerd, type Workerd } from "./support/miniflare.js";
import type { ReserveJob, ReserveResult } from "./support/test-app.js";

let workerd: Workerd;
let run = 0;
const freshPrefix = () => {
  run += 1;
  return `bud${process.pid}_${run}_`;
};

beforeAll(async () => {
  workerd = await startWorkerd({ workers: 2 });
}, 60_000);
afterAll(async () => {
  await workerd?.dispose();
});

const open = { limit: 1_000_000, window: "1h" } as const;
const tiers: KeywardConfig["tiers"] = { free: { rateLimit: open } };

for (const limitObjects of ["owner", "key"] as const) {
  describeBudgets({
    name: `Cloudflare Durable Objects (limits per ${limitObjects})`,
    // The suite's Keyward runs on a manual clock: the holds' TTL is its sweep's, not the alarm's.
    holds: async () =>
      cloudflareStore({
        namespace: await workerd.namespace(),
        prefix: freshPrefix(),
        releaseHoldsAtTtl: false,
      }).holds,
    keyward: async ({ clock, features }) =>
      createKeyward({
        store: cloudflareStore({
          namespace: await workerd.namespace(),
          prefix: freshPrefix(),
          limitObjects,
        }),
        scopes: { "completions:write": "Write completions" },
        tiers: { free: { rateLimit: { limit: 10_000, window: "1m" } } },
        clock,
        jwt: false,
        logger: false,
        features,
      }),
  });
}

describe.each(["owner", "key"] as const)(
  "holds across two isolates, limits per %s",
  (limitObjects) => {
    const setUp = async (count: number) => {
      const prefix = freshPrefix();
      const store = cloudflareStore({ namespace: await workerd.namespace(), prefix, limitObjects });
      const admin = createKeyward({
        store,
        scopes: { "profile:read": "Read" },
        tiers,
        jwt: false,
        logger: false,
      });
      const ownerId = `owner-${Math.random().toString(36).slice(2)}`;
      const keys = [];
      for (let index = 0; index < count; index++) {
        keys.push(
          await admin.keys.create({
            ownerId,
            accountTier: "free",
            name: "k",
            scopes: ["profile:read"],
            tier: "free",
          }),
        );
      }
      return { prefix, store, admin, ownerId, keys };
    };

    const both = async (job: ReserveJob) => {
      const results = await Promise.all(
        [0, 1].map(async (worker) => {
          const response = await workerd.fetch(`worker${worker}`, "/reserve", {
            method: "POST",
            body: JSON.stringify(job),
          });
          if (!response.ok) throw new Error(`worker${worker}: ${await response.text()}`);
          return (await response.json()) as ReserveResult;
        }),
      );
      // Both isolates got reservations admitted: they contended for the same balances.
      expect(results.every((result) => result.admitted.some((n) => n > 0))).toBe(true);
      return {
        admitted: results[0]!.admitted.map((n, index) => n + results[1]!.admitted[index]!),
        spent: results[0]!.spent + results[1]!.spent,
        refusals: results.flatMap((result) => Object.keys(result.refusals)),
      };
    };

    it("credits: every reservation settled, the balances are their grant less exactly what was spent", async () => {
      const { prefix, store, admin, ownerId, keys } = await setUp(3);
      for (const key of keys) await admin.keys.setLimits(key.id, { credits: { remaining: 300 } });
      const result = await both({
        prefix,
        limitObjects,
        tiers,
        keys: keys.map((key) => key.key),
        requests: 200,
        inFlight: 8,
        cost: 10,
        spend: 4,
        settle: true,
      });
      // 400 reservations of 10 on 900 credits, 4 spent each: some are refused while others hold.
      expect(result.refusals.every((detail) => detail === "API key has no credits left")).toBe(
        true,
      );
      for (const [index, key] of keys.entries()) {
        const left = (await admin.keys.usage(ownerId, key.id)).credits?.remaining;
        expect(left).toBe(300 - 4 * result.admitted[index]!);
        expect(await store.holds.heldBy(key.id)).toBe(0);
      }
      expect(result.spent).toBe(4 * result.admitted.reduce((a, b) => a + b, 0));
    });

    it("an owner's budget shared by its keys admits exactly its limit", async () => {
      const { prefix, keys } = await setUp(3);
      const result = await both({
        prefix,
        limitObjects,
        tiers,
        budget: { perOwner: { limit: 500, period: "day" } },
        keys: keys.map((key) => key.key),
        // 80 of cost 5 from each isolate: 800 asked of 500, and neither alone can spend it all (400),
        // so both get some admitted whichever starts first, on a quiet machine or a loaded one.
        requests: 80,
        inFlight: 8,
        cost: 5,
        spend: 5,
        settle: true,
      });
      expect(result.admitted.reduce((a, b) => a + b, 0)).toBe(100);
      expect(result.spent).toBe(500);
    });
  },
);

describe("holds left unsettled", () => {
  it("are given back by the holds object's alarm at their TTL, with no Keyward sweeping", async () => {
    for (const limitObjects of ["owner", "key"] as const) {
      const prefix = freshPrefix();
      const store = cloudflareStore({ namespace: await workerd.namespace(), prefix, limitObjects });
      const admin = createKeyward({
        store,
        scopes: { "profile:read": "Read" },
        tiers,
        jwt: false,
        logger: false,
      });
      const ownerId = `owner-${Math.random().toString(36).slice(2)}`;
      const key = await admin.keys.create({
        ownerId,
        accountTier: "free",
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
      });
      await admin.keys.setLimits(key.id, { credits: { remaining: 100 } });
      const response = await workerd.fetch("worker0", "/reserve", {
        method: "POST",
        body: JSON.stringify({
          prefix,
          limitObjects,
          tiers,
          budget: { perKey: { limit: 50, period: "day" } },
          keys: [key.key],
          requests: 3,
          inFlight: 1,
          cost: 10,
          spend: 0,
          settle: false,
          holdTtl: "1s",
        } satisfies ReserveJob),
      });
      expect(((await response.json()) as ReserveResult).admitted).toEqual([3]);
      const credits = async () => (await admin.keys.usage(ownerId, key.id)).credits?.remaining;
      expect(await credits()).toBe(70);
      // The alarm fires about a second later; a loaded machine may take longer.
      const deadline = Date.now() + 30_000;
      while ((await store.holds.heldBy(key.id)) > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await store.holds.heldBy(key.id)).toBe(0);
      expect(await credits()).toBe(100);
      // The budget got its 30 back too: 50 can be held again at once.
      const again = await workerd.fetch("worker1", "/reserve", {
        method: "POST",
        body: JSON.stringify({
          prefix,
          limitObjects,
          tiers,
          budget: { perKey: { limit: 50, period: "day" } },
          keys: [key.key],
          requests: 6,
          inFlight: 1,
          cost: 10,
          spend: 10,
          settle: true,
        } satisfies ReserveJob),
      });
      expect(((await again.json()) as ReserveResult).admitted).toEqual([5]);
    }
  }, 90_000);
});
