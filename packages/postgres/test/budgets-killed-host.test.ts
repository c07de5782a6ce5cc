/**
 * A host killed holding reservations: an instance in its own process (budgets/hold-instance.ts)
 * reserves 20 holds on one key's budget and is killed with SIGKILL before it settles any of them, no
 * close, nothing flushed. Another instance on the same PostgreSQL (keys, holds) and Redis (limits,
 * the budget's balance) sees them held, and once their TTL has passed its sweep gives each back
 * exactly once: the customer loses nothing to the crash, and the budget holds nothing for ever.
 * The TTL is 2 s on the system clock (a killed process shares no manual clock); the test waits for
 * the outcome, never for a time. Twice: holds in PostgreSQL, and holds in Redis kept as layers
 * (`redisHoldStore` on the limits' client and prefix), where nothing of them may be left after.
 */
import type { Keyward } from "@keyward/core";
import type { BudgetsApi } from "@keyward/core/budgets";
import IORedis from "ioredis";
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { localRedis } from "../../redis/test/support/redis-url.js";
import { keysUnder } from "../../redis/test/support/scan.js";
import { migrate } from "../src/index.js";
import {
  budgetLimit,
  type HoldsIn,
  holdKeyward,
  requiredScopes,
  route,
} from "./budgets/hold-keyward.js";
import { startHoldInstance } from "./budgets/start-hold-instance.js";
import { describeOnServer, dropSchema, serverPool, uniqueSchema } from "./support/databases.js";

/** A hold's own layer under a prefix (`hold-layer.ts`): `layer:{<owner>}:hold:<id>`. */
const holdLayerKey = /^layer:\{[^}]*\}:hold:/;

const holdsNamed: Record<HoldsIn, string> = {
  postgres: "holds in PostgreSQL",
  redis: "holds in Redis, kept as layers",
};

function describeKilledHost(holdsIn: HoldsIn) {
  describeOnServer(`budgets: a host killed holding reservations (${holdsNamed[holdsIn]})`, () => {
    const schema = uniqueSchema(`budgets_killed_${holdsIn}`);
    const prefix = `keyward-test:budgets-killed:${holdsIn}:${crypto.randomUUID()}:`;
    let admin: pg.Pool;
    let pool: pg.Pool;
    let client: IORedis;
    let keyward: Keyward & { budgets: BudgetsApi };
    let victim: ReturnType<typeof startHoldInstance> | undefined;

    beforeAll(async () => {
      admin = serverPool();
      await migrate(admin, { schema });
      pool = serverPool({ max: 4 });
      client = new IORedis(localRedis);
      keyward = holdKeyward({ pool, client, schema, redisPrefix: prefix, holdsIn, logger: false });
    }, 60_000);

    afterAll(async () => {
      await victim?.stop();
      await keyward?.close();
      client?.disconnect();
      await pool?.end();
      const cleaner = new IORedis(localRedis);
      const keys = await cleaner.keys(`${prefix}*`);
      if (keys.length > 0) await cleaner.del(...keys);
      cleaner.disconnect();
      await dropSchema(admin, schema);
      await admin.end();
    });

    it("its holds are given back once each after the TTL, on the instance that lives", async () => {
      const created = await keyward.keys.create({
        ownerId: "agent-owner",
        accountTier: "free",
        name: "agent",
        scopes: requiredScopes,
        tier: "free",
      });
      const header = `Bearer ${created.key}`;
      const standing = async () => (await keyward.budgets.usage(created.id))!.key!;
      /** With holds in Redis, what of them is there: the holds' layers and the sweep's records. */
      const holdsInRedis = async () => ({
        layers: (await keysUnder(client, prefix)).filter((key) =>
          holdLayerKey.test(key.slice(prefix.length)),
        ).length,
        records: await client.hlen(`${prefix}{holds}:record`),
      });

      victim = startHoldInstance("victim", { schema, redisPrefix: prefix, holdsIn });
      await victim.ready;
      const ids = await victim.request<string[]>({
        type: "reserve",
        header,
        count: 20,
        cost: 1_000,
      });
      expect(new Set(ids).size).toBe(20);
      // The living instance spends some of the same budget meanwhile.
      const own = await keyward.budgets.reserve(header, {
        scopes: requiredScopes,
        route,
        cost: 500,
      });
      if (!own.ok) throw new Error(`refused: ${own.error.status}`);
      expect(await own.hold.settle(200)).toMatchObject({ done: true, spent: 200, returned: 300 });

      await victim.kill();
      expect(victim.child.signalCode).toBe("SIGKILL");
      expect(await standing()).toMatchObject({
        held: 20_000,
        spent: 200,
        left: budgetLimit - 20_200,
      });
      // The killed instance's holds are layers in Redis, each with its record for the sweep (the
      // living instance's own hold ended: its layer went with it, its record in the background).
      if (holdsIn === "redis") {
        await expect.poll(holdsInRedis, { timeout: 30_000 }).toEqual({ layers: 20, records: 20 });
      }

      // Swept until all 20 came back (each sweep gives back those past their TTL by then).
      let released = 0;
      for (let sweep = 0; released < 20 && sweep < 600; sweep++) {
        released += await keyward.budgets.releaseExpired();
        if (released < 20) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(released).toBe(20);
      expect(await keyward.budgets.releaseExpired()).toBe(0);
      // Given back whole: the budget is spent by what was settled alone.
      expect(await standing()).toMatchObject({ held: 0, spent: 200, left: budgetLimit - 200 });
      // Settling a hold the sweep gave back does nothing.
      expect(await keyward.budgets.settle(ids[0]!, 1_000)).toEqual({ done: false, reason: "gone" });
      // Nothing of the holds is left: the sweep took each layer, and removes each record after.
      if (holdsIn === "redis") {
        await expect.poll(holdsInRedis, { timeout: 30_000 }).toEqual({ layers: 0, records: 0 });
      }
    }, 120_000);
  });
}

describeKilledHost("postgres");
describeKilledHost("redis");
