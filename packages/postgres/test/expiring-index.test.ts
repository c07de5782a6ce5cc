/**
 * The expiring-keys index on a real server: the `key.expiring` scan's query is read off the partial
 * index in its order, with no sort and no walk of the table.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate, postgresStore } from "../src/index.js";
import { describeOnServer, dropSchema, serverPool, uniqueSchema } from "./support/databases.js";

const day = 86_400_000;

describeOnServer("the expiring-keys index", () => {
  const schema = uniqueSchema("expiring");
  const pool = serverPool({ max: 2 });

  beforeAll(async () => {
    await migrate(pool, { schema });
  });
  afterAll(async () => {
    await dropSchema(pool, schema);
    await pool.end();
  });

  it("is partial, on (expires_at, id), and what the scan's query reads", async () => {
    const { rows } = await pool.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'keyward_keys_expiring_idx'",
      [schema],
    );
    expect(rows[0]?.indexdef).toMatch(
      /\(expires_at, id\) WHERE \(\(expires_at IS NOT NULL\) AND \(revoked_at IS NULL\)\)/,
    );
    // Many keys, few of them expiring in the window: the plan must use the index, not the table.
    const now = Date.UTC(2031, 0, 1);
    await pool.query(
      `INSERT INTO "${schema}".keyward_keys (id, owner_id, name, scopes, tier, secret_hash, hint,
         created_at, expires_at, revoked_at, owner_type, created_by)
       SELECT 'key_' || lpad(i::text, 24, '0'), 'bulk', 'k', '[]', 'free',
         encode(sha256(i::text::bytea), 'hex'), 'sk_live_…abcd', now(),
         CASE WHEN i % 100 = 0 THEN to_timestamp(($1::bigint + i * 60000) / 1000.0) END,
         CASE WHEN i % 300 = 0 THEN now() END, 'user', 'bulk'
       FROM generate_series(1, 20000) AS i`,
      [now],
    );
    await pool.query(`ANALYZE "${schema}".keyward_keys`);
    const store = postgresStore({ client: pool, schema, cache: false });
    const found = await store.keys!.listExpiring!({ from: now, to: now + day, limit: 500 });
    // i = 100, 200, … up to 1,440 minutes later; every third of them (i % 300) revoked.
    const expected = [];
    for (let i = 100; i * 60_000 < day; i += 100) if (i % 300 !== 0) expected.push(i);
    expect(found.map((key) => Number(key.id.slice(4)))).toEqual(expected);

    const plan = await pool.query<{ "QUERY PLAN": string }>(
      `EXPLAIN SELECT id FROM "${schema}".keyward_keys
        WHERE expires_at IS NOT NULL AND revoked_at IS NULL
          AND expires_at >= to_timestamp($1::bigint / 1000.0)
          AND expires_at < to_timestamp($2::bigint / 1000.0)
        ORDER BY expires_at, id LIMIT 200`,
      [now, now + day],
    );
    const steps = plan.rows.map((row) => row["QUERY PLAN"]).join("\n");
    expect(steps).toContain("keyward_keys_expiring_idx");
    expect(steps).not.toMatch(/Seq Scan|\bSort\b/);
    await store.close();
  });
});
