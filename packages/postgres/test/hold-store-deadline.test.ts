/**
 * The holds table behind a paused TCP proxy (the database stops answering, nothing is closed): each
 * call of `postgresHoldStore` fails with a `StoreUnavailableError` at its deadline instead of
 * waiting for ever, and the store serves again once the proxy forwards again. The deadline is the
 * only way such a call can end, so a short one is safe here; the calls that must succeed run with
 * a deadline far above a loaded machine's slowest answer.
 */
import { StoreUnavailableError } from "@keyward/core/toolkit";
import pg from "pg";
import { expect, it } from "vitest";
import { postgresHoldStore } from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  serverUrl,
  uniqueSchema,
  waitFor,
} from "./support/databases.js";
import { startPausableProxy } from "./support/pausable-proxy.js";

const hold = (id: string) => ({
  id,
  keyId: "k",
  ownerId: "o",
  owner: "user:o",
  amount: 3,
  layers: [],
  heldAt: 0,
  expiresAt: 0,
});

describeOnServer("postgresHoldStore when PostgreSQL stops answering", () => {
  it("fails each call at its deadline and serves again once the database answers", async () => {
    const schema = uniqueSchema("hold_deadline");
    const admin = serverPool();
    const proxy = await startPausableProxy(serverUrl);
    const pool = new pg.Pool({ connectionString: proxy.url, max: 4 });
    // Swallow the errors of connections the paused proxy leaves hanging when the test ends.
    pool.on("error", () => {});
    try {
      await admin.query(`CREATE SCHEMA ${schema}`);
      const table = `${schema}.holds`;
      const healthy = postgresHoldStore({ client: pool, table, timeoutMs: 30_000 });
      const short = postgresHoldStore({ client: pool, table, timeoutMs: 300, createTable: false });
      await healthy.put(hold("before"));

      proxy.pause();
      const calls = [
        short.put(hold("during")),
        short.take("before"),
        short.expired(Date.now(), 10),
        short.heldBy("k"),
      ];
      for (const outcome of await Promise.allSettled(calls)) {
        expect(outcome.status).toBe("rejected");
        const error = (outcome as PromiseRejectedResult).reason;
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as StoreUnavailableError).kind).toBe("timeout");
        expect(String((error as Error).message)).toMatch(/within 300 ms/);
      }

      proxy.resume();
      // A call that missed its deadline may still land once the proxy forwards (as with any
      // store: docs/budgets.md); what must hold is that the store serves again.
      await waitFor(async () => (await healthy.heldBy("k").catch(() => -1)) >= 0, 30_000);
      await healthy.put(hold("after"));
      expect(await healthy.take("after")).toMatchObject({ id: "after", amount: 3 });
    } finally {
      proxy.resume();
      await pool.end().catch(() => {});
      await proxy.close();
      await dropSchema(admin, schema);
      await admin.end();
    }
  }, 120_000);

  it("refuses a deadline that is not a positive number of milliseconds", () => {
    const client = { query: async () => ({ rows: [] }) };
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => postgresHoldStore({ client, timeoutMs })).toThrow(/timeoutMs/);
    }
  });
});
