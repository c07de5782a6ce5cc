import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { migrate, postgresJsClient } from "../src/index.js";
import { describePostgresConformance } from "./support/conformance.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  serverUrl,
  uniqueSchema,
} from "./support/databases.js";

describeOnServer("real server", () => {
  const schema = uniqueSchema("server");
  const pool = serverPool({ max: 12 });
  const sql = postgres(serverUrl, { max: 8, onnotice: () => {} });
  const postgresJs = postgresJsClient(sql);

  beforeAll(async () => {
    await migrate(pool, { schema });
  });
  afterAll(async () => {
    await dropSchema(pool, schema);
    await pool.end();
    await sql.end();
  });

  describePostgresConformance("postgres on pg.Pool (cached, LISTEN/NOTIFY)", async () => ({
    client: pool,
    schema,
  }));
  describePostgresConformance("postgres on postgres.js (cached, LISTEN/NOTIFY)", async () => ({
    client: postgresJs,
    schema,
  }));
});
