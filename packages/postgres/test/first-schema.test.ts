/**
 * The first schema, pinned: migrating an empty schema must build exactly the catalog in
 * `fixtures/first-schema.json`, on a real server and on PGlite. The fixture was dumped from the
 * thirteen pre-release migrations, before they were collapsed into one: this is what proves the
 * collapse changed nothing a query can see. Until the first release it follows the first schema's
 * edits in place, each one by hand: the keys' `imported_last_used_at` (issue 28), `resources` and
 * `enabled_at`, and the usage rows' last address (issue 29); then the keys' feature fields folded
 * into one `fields` column (issue 38), in place of `allowed_ips`, `resources`, `sealed_secret` and
 * `imported_last_used_at`, and the usage rows' last address made the fields of the last use
 * (`use_fields`, issue 38). The fixture is never regenerated: it
 * is the first release's schema. When a second migration comes, this test builds version 1 alone (its
 * statements from `migrationStatements`), and that migration's test starts from this schema.
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { migrate } from "../src/index.js";
import { type CatalogDump, dumpCatalog } from "./support/catalog.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  sharedPGlite,
  uniqueSchema,
} from "./support/databases.js";

const firstSchema = JSON.parse(
  readFileSync(new URL("./fixtures/first-schema.json", import.meta.url), "utf8"),
) as CatalogDump;

const pglite = sharedPGlite();
afterAll(() => pglite.close());

describeOnServer("the first schema on the real server", () => {
  const pool = serverPool({ max: 2 });
  const schema = uniqueSchema("first");
  afterAll(async () => {
    await dropSchema(pool, schema);
    await pool.end();
  });

  it("is what migrating an empty schema builds, column for column and index for index", async () => {
    await migrate(pool, { schema });
    expect(await dumpCatalog(pool, schema)).toEqual(firstSchema);
  });
});

describe("the first schema on PGlite", () => {
  it("is what migrating an empty schema builds, column for column and index for index", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("first");
    await migrate(db, { schema });
    expect(await dumpCatalog(db, schema)).toEqual(firstSchema);
  });
});

describe("the catalog dump", () => {
  it("sees a change to any column, constraint or index", async () => {
    const db = await pglite.get();
    const changes = [
      `ALTER TABLE "$schema".keyward_keys ALTER COLUMN hint DROP NOT NULL`,
      `ALTER TABLE "$schema".keyward_keys ALTER COLUMN version SET DEFAULT 2`,
      `ALTER TABLE "$schema".keyward_keys ALTER COLUMN name TYPE text COLLATE "C"`,
      `ALTER TABLE "$schema".keyward_key_usage DROP CONSTRAINT keyward_key_usage_count_check`,
      `DROP INDEX "$schema".keyward_usage_day_idx`,
      `COMMENT ON TABLE "$schema".keyward_events IS 'audit log'`,
      `CREATE FUNCTION "$schema".f() RETURNS int LANGUAGE sql AS 'SELECT 1'`,
    ];
    for (const change of changes) {
      const schema = uniqueSchema("drift");
      await migrate(db, { schema });
      await db.query(change.replace("$schema", schema));
      expect(await dumpCatalog(db, schema), change).not.toEqual(firstSchema);
    }
  });
});
