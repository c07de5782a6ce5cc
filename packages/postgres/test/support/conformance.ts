import type { KeywardStore } from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { describeStorageConformance } from "@keyward/testing";
import { type PostgresClient, type PostgresStoreOptions, postgresStore } from "../../src/index.js";
import { dumpSchema } from "./databases.js";

type ConformanceStore = KeywardStore & {
  pg: ReturnType<typeof postgresStore>;
  client: PostgresClient;
  schema: string;
};

/**
 * Runs `@keyward/testing`'s storage suite on `postgresStore`. Postgres holds keys, usage, quotas
 * and credits; rate limits come from memory, so their section is skipped (the layered section runs,
 * its rate layers in memory and its quotas and credits in the database). The probe reads the tables
 * directly: `dump` returns every row of every table in the schema.
 */
export function describePostgresConformance(
  name: string,
  setup: () => Promise<{ client: PostgresClient; schema: string }>,
  options: Omit<PostgresStoreOptions, "client" | "schema"> = {},
): void {
  describeStorageConformance<ConformanceStore>(name, {
    async createStore() {
      const { client, schema } = await setup();
      const store = postgresStore({ client, schema, ...options });
      await store.ready;
      return {
        keys: store.keys,
        events: store.events,
        outbox: store.outbox,
        usage: store.usage,
        rateLimits: memoryRateLimitStore(),
        allowances: store.allowances,
        close: () => store.close(),
        pg: store,
        client,
        schema,
      };
    },
    skipRateLimits: true,
    probe: {
      dump: (store) => dumpSchema(store.client, store.schema),
      async rawKey(store, id) {
        const { rows } = await store.client.query(
          `SELECT to_jsonb(k) AS row FROM ${store.pg.tables.keys} k WHERE id = $1`,
          [id],
        );
        const [first] = rows as { row: Record<string, unknown> | string }[];
        if (!first) return null;
        return typeof first.row === "string" ? JSON.parse(first.row) : first.row;
      },
    },
  });
}
