/**
 * Instances starting at once each create the holds table on first use. PostgreSQL refuses all but
 * one of concurrent `CREATE TABLE IF NOT EXISTS` of a missing table (a unique violation in its
 * catalogue, once the first commits); three instances starting together failed their first
 * reservation that way. Every store's first write must succeed, and the table hold every hold.
 */
import { expect, it } from "vitest";
import { postgresHoldStore } from "../src/index.js";
import { describeOnServer, dropSchema, serverPool, uniqueSchema } from "./support/databases.js";

describeOnServer("the holds table, created by instances starting at once", () => {
  it("is created once and every instance's first hold is kept", async () => {
    const schema = uniqueSchema("hold_race");
    const pools = Array.from({ length: 6 }, () => serverPool());
    try {
      await pools[0]!.query(`CREATE SCHEMA ${schema}`);
      // Several rounds, each on a table no store has created yet: the race is a matter of timing.
      for (let round = 0; round < 5; round++) {
        const table = `${schema}.holds_${round}`;
        const stores = pools.map((client) => postgresHoldStore({ client, table }));
        await Promise.all(
          stores.map((store, i) =>
            store.put({
              id: `h${round}_${i}`,
              keyId: "k",
              ownerId: "o",
              owner: "user:o",
              amount: 1,
              layers: [],
              heldAt: 0,
              expiresAt: 0,
            }),
          ),
        );
        const { rows } = await pools[0]!.query(`SELECT count(*)::int AS n FROM ${table}`);
        expect(rows[0].n).toBe(pools.length);
      }
    } finally {
      await dropSchema(pools[0]!, schema);
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});
