/**
 * The budgets suite on PostgreSQL: keys, quotas, credits and budgets in the database (rate limits
 * per instance in memory, as `combineStores(postgresStore, memoryStore())` keeps them), and holds
 * in their table.
 */
import { combineStores, createKeyward, memoryStore } from "@keyward/core";
import { describeBudgets } from "@keyward/testing";
import type pg from "pg";
import { migrate, postgresHoldStore, postgresStore } from "../src/index.js";
import { describeOnServer, dropSchema, serverPool, uniqueSchema } from "./support/databases.js";

describeOnServer("PostgreSQL", () => {
  const schema = uniqueSchema("budgets");
  let client: pg.Pool | undefined;
  let migrated: Promise<unknown> | undefined;
  /** The pool, once the schema is migrated. */
  const pool = async () => {
    client ??= serverPool();
    migrated ??= migrate(client, { schema });
    await migrated;
    return client;
  };
  let tables = 0;
  describeBudgets({
    name: "PostgreSQL",
    async holds() {
      return postgresHoldStore({ client: await pool(), table: `${schema}.holds_${++tables}` });
    },
    async keyward({ clock, features }) {
      const client = await pool();
      return createKeyward({
        store: combineStores(
          postgresStore({ client, schema, cache: false, invalidation: false }),
          memoryStore(),
        ),
        scopes: { "completions:write": "Write completions" },
        tiers: { free: { rateLimit: { limit: 10_000, window: "1m" } } },
        clock,
        jwt: false,
        logger: false,
        features,
      });
    },
    async cleanup() {
      if (!client) return;
      await dropSchema(client, schema);
      await client.end();
    },
  });
});
