/**
 * GitHub's secret-scanning endpoint with keys and events on a real PostgreSQL server: revocation
 * with its `key.revoked` in one transaction, `key.leaked` once per key and place across GitHub's
 * repeats (the once-markers in keyward_event_once). Served by core's own `handle`.
 */
import { combineStores, createKeyward, memoryStore } from "@keyward/core";
import { secretScanning } from "@keyward/core/secret-scanning";
import { demoKeywardConfig, describeSecretScanning } from "@keyward/testing";
import pg from "pg";
import { postgresStore } from "../src/index.js";
import { describeOnServer, dropSchema, serverUrl, uniqueSchema } from "./support/databases.js";

const jwtSecret = "postgres-secret-scanning-secret-of-at-least-32-bytes";

describeOnServer("PostgreSQL: secret scanning", () => {
  describeSecretScanning("core handle, PostgreSQL keys and events", {
    serve: async (config) => {
      const pool = new pg.Pool({ connectionString: serverUrl, max: 4 });
      pool.on("error", () => {});
      const schema = uniqueSchema("leaks");
      const store = postgresStore({ client: pool, schema });
      await store.migrate();
      await store.ready;
      const keyward = createKeyward({
        store: combineStores(store, memoryStore()),
        ...demoKeywardConfig(jwtSecret, { features: [secretScanning(config)] }),
      });
      return {
        fetch: (request) => keyward.handle(request),
        keyward,
        close: async () => {
          await keyward.close();
          await dropSchema(pool, schema);
          await pool.end();
        },
      };
    },
  });
});
