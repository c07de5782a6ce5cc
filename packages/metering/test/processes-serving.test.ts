/**
 * A SIGKILL while serving, at the ledger write: the instance is killed with a served request's
 * usage not yet sent to PostgreSQL ("before"), or committed there with the request's answer never
 * sent ("after"). Another instance serves on and exports; a third starts after the kill. The sink
 * (the local Stripe server through the `stripe` SDK) must hold, for the owner, exactly the requests
 * the ledger holds, each once: the answered ones, plus the killed one when its write had committed
 * (served and charged, its answer lost: usage, as docs/billing.md says), never more.
 *
 * The kill point is chosen, not raced: the instance's n-th ledger write stops there and says so
 * (metered-instance.ts, KEYWARD_TEST_HANG_LEDGER), then the test kills it. Real processes, the real
 * PostgreSQL and Redis.
 */
import { randomBytes } from "node:crypto";
import { migrate } from "@keyward/postgres";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresLedger } from "../src/index.js";
import { type Instance, startInstance } from "./processes/start-instance.js";
import { type LocalStripe, localStripe } from "./support/local-stripe.js";
import { dropSchema, testPool, uniqueSchema } from "./support/postgres.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(["before", "after"] as const)(
  "a SIGKILL at a served request's ledger write (%s it commits)",
  (when) => {
    const pool = testPool(2);
    const redis = new IORedis({ host: "127.0.0.1", port: 6379, lazyConnect: true });
    const schema = uniqueSchema(`kill${when}`);
    const redisPrefix = `kwtest:meterkill:${randomBytes(4).toString("hex")}:`;
    const started: Instance[] = [];
    let server: LocalStripe;

    const start = async (name: string, hangLedger?: string) => {
      const instance = startInstance(name, {
        schema,
        redisPrefix,
        stripePort: server.port,
        ...(hangLedger ? { hangLedger } : {}),
      });
      started.push(instance);
      await instance.ready;
      return instance;
    };

    beforeAll(async () => {
      await redis.connect();
      await migrate(pool, { schema });
      await postgresLedger({ client: pool, schema }).migrate();
      server = await localStripe({ secretKey: "sk_test_local", meters: ["keyward_api_requests"] });
    }, 60_000);

    afterAll(async () => {
      await Promise.all(started.map((instance) => instance.stop()));
      await server?.close();
      await dropSchema(pool, schema);
      await pool.end();
      const names = await redis.keys(`${redisPrefix}*`);
      if (names.length > 0) await redis.del(...names);
      redis.disconnect();
    });

    it("the sink holds what the ledger holds, each request once: the answered ones, and the killed one only if its write committed", async () => {
      const doomed = await start("doomed", `${when}:6`);
      const other = await start("other");
      const key = await doomed.request<string>({ type: "create", ownerId: "payer" });
      // The 6th served request's ledger write stops the doomed instance's loop; it never answers.
      void doomed
        .request({ type: "verify", key, count: 20, scope: "profile:read" })
        .catch(() => {});
      const hung = await doomed.hung;
      expect(hung).toEqual({ when, answered: 5 });
      await doomed.kill();
      const servedByOther = await other.request<number>({
        type: "verify",
        key,
        count: 4,
        scope: "profile:read",
      });
      expect(servedByOther).toBe(4);
      const reborn = await start("reborn");

      const inFlightBilled = when === "after" ? 1 : 0;
      const expected = hung.answered + servedByOther + inFlightBilled;
      const billed = () => server.totals("keyward_api_requests").get("payer") ?? 0;
      const ledger = postgresLedger({ client: pool, schema });
      const ledgerTotal = async () =>
        (await ledger.totals(0, Number.MAX_SAFE_INTEGER))
          .filter((row) => row.ownerId === "payer" && row.meter === "requests")
          .reduce((sum, row) => sum + row.total, 0);
      expect(await ledgerTotal()).toBe(expected);
      const deadline = Date.now() + 45_000;
      while (billed() !== expected && Date.now() < deadline) await sleep(100);
      expect(billed()).toBe(expected);
      // Several export runs later, nothing more arrived, and no identifier twice.
      await sleep(1_000);
      expect(billed()).toBe(expected);
      const identifiers = server.events.map((event) => event.identifier);
      expect(new Set(identifiers).size).toBe(identifiers.length);
      expect(await ledger.adjustments()).toEqual([]);
      await Promise.all([other.stop(), reborn.stop()]);
    }, 120_000);
  },
);
