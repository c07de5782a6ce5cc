/**
 * One of the processes of `layered-exactness.test.ts` (`runLayeredWorker` from
 * `@keyward/testing/layered-exactness`): a Keyward instance of its own on the shared database
 * (keys, quotas and credits; rate limits in this process's memory), on its own pool.
 */
import { combineStores, memoryStore } from "@keyward/core";
import { runLayeredWorker } from "@keyward/testing/layered-exactness";
import pg from "pg";
import { postgresStore } from "../../src/index.js";

const client = new pg.Pool({ connectionString: process.env.KEYWARD_TEST_DATABASE_URL, max: 8 });
client.on("error", () => {});

runLayeredWorker<{ schema: string }>({
  // No cache: each job reads the limits the test has just set.
  store: ({ schema }) =>
    combineStores(
      postgresStore({ client, schema, cache: false, invalidation: false, timeoutMs: 10_000 }),
      memoryStore(),
    ),
  close: () => client.end(),
});
