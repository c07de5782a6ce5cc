import { afterAll, describe, expect, it } from "vitest";
import {
  latestVersion,
  migrate,
  migrationStatements,
  type PostgresClient,
  postgresStore,
} from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  sharedPGlite,
  uniqueSchema,
} from "./support/databases.js";

const pglite = sharedPGlite();
afterAll(() => pglite.close());

const hash = (fill: string) => fill.repeat(64).slice(0, 64);
/** Every migration version: what `migrate` applies to an empty schema. */
const allVersions = migrationStatements().map(({ version }) => version);

describe("migrate on PGlite", () => {
  it("applies every migration once; a second run is a no-op", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("mig");
    expect(await migrate(db, { schema })).toEqual({
      applied: allVersions,
      version: latestVersion,
    });
    expect(await migrate(db, { schema })).toEqual({ applied: [], version: latestVersion });
    const { rows } = await db.query<{ version: number }>(
      `SELECT version FROM "${schema}"."keyward_migrations"`,
    );
    expect(rows.map((row) => row.version)).toEqual(allVersions);
  });

  it("keeps schemas and prefixes apart", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("iso");
    await migrate(db, { schema, tablePrefix: "a_" });
    await migrate(db, { schema, tablePrefix: "b_" });
    const { rows } = await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [schema],
    );
    expect(rows.map((row) => row.table_name)).toEqual([
      "a_allowances",
      "a_event_once",
      "a_events",
      "a_key_usage",
      "a_keys",
      "a_migrations",
      "a_webhook_deliveries",
      "b_allowances",
      "b_event_once",
      "b_events",
      "b_key_usage",
      "b_keys",
      "b_migrations",
      "b_webhook_deliveries",
    ]);
  });

  it("creates the unique hash index and the owner listing index", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("idx");
    await migrate(db, { schema });
    const { rows } = await db.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname",
      [schema],
    );
    const definitions = Object.fromEntries(rows.map((row) => [row.indexname, row.indexdef]));
    expect(definitions.keyward_keys_secret_hash_key).toMatch(
      /CREATE UNIQUE INDEX .* \(secret_hash\)/,
    );
    expect(definitions.keyward_keys_owner_created_idx).toMatch(
      /\(owner_id, owner_type, created_at DESC, id DESC\)/,
    );
    expect(definitions.keyward_key_usage_pkey).toMatch(/\(key_id, method, route, day\)/);
  });

  it("refuses names that would need quoting or be truncated", () => {
    expect(() => migrationStatements({ schema: 'a"; DROP TABLE x; --' })).toThrow(TypeError);
    expect(() => migrationStatements({ tablePrefix: "with space" })).toThrow(TypeError);
    expect(() => migrationStatements({ tablePrefix: "x".repeat(60) })).toThrow(TypeError);
    expect(migrationStatements({ schema: "auth" })[0]!.statements[0]).toContain(
      '"auth"."keyward_keys"',
    );
  });

  it("keeps anything but a 64-hex-digit hash out of secret_hash, whatever writes to the table", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("chk");
    await migrate(db, { schema });
    await expect(
      db.query(
        `INSERT INTO "${schema}"."keyward_keys" (id, owner_id, name, scopes, tier, secret_hash, hint, created_at)
         VALUES ('k', 'o', 'n', '[]', 'free', 'sk_live_not_a_hash', 'h', now())`,
      ),
    ).rejects.toThrow(/check constraint/);
  });

  it("stores times exactly, from year 1 to the last time a Date can hold", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("time");
    await migrate(db, { schema });
    const store = postgresStore({ client: db, schema, cache: false });
    const times = [
      0, 1, -1_500, 1_767_225_600_123, 253_402_300_799_999, 8.64e15, -62_135_596_800_000,
    ];
    for (const [index, time] of times.entries()) {
      const key = {
        id: `time_${index}`,
        ownerType: "user" as const,
        ownerId: "o",
        createdBy: "o",
        name: "n",
        scopes: [],
        tier: "free",
        secretHash: hash(index.toString(16)),
        hint: "h",
        createdAt: time,
        expiresAt: time,
        revokedAt: null,
        rotatedAt: time,
        previousSecretHash: hash(`e${index}`),
        previousSecretExpiresAt: time,
        ownerTier: index % 2 ? "pro" : null,
        disabledAt: null,
        metadata: null,
        version: index + 1,
      };
      await store.keys.create(key);
      expect(await store.keys.findById(key.id)).toEqual(key);
    }
    await expect(store.keys.revoke("time_0", 1.5)).rejects.toThrow(/whole milliseconds/);
  });
});

describeOnServer("migrate on the real server", () => {
  const schema = uniqueSchema("race");
  const pools = Array.from({ length: 5 }, () => serverPool({ max: 2 }));
  afterAll(async () => {
    await dropSchema(pools[0]!, schema);
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it("applies exactly once when several instances start at the same moment", async () => {
    const results = await Promise.all(pools.map((pool) => migrate(pool, { schema })));
    expect(results.filter((result) => result.applied.length > 0)).toEqual([
      { applied: allVersions, version: latestVersion },
    ]);
    expect(results.every((result) => result.version === latestVersion)).toBe(true);
    const { rows } = await pools[0]!.query(
      `SELECT count(*)::int AS n FROM "${schema}"."keyward_migrations"`,
    );
    expect(rows[0].n).toBe(migrationStatements().length);
    // And again, all at once: nothing left to do.
    const again = await Promise.all(pools.map((pool) => migrate(pool, { schema })));
    expect(again.every((result) => result.applied.length === 0)).toBe(true);
  });
});

/**
 * The thirteen migrations of the pre-release builds, as their `migrate` recorded them. Their
 * schema at 13 is the first schema (test/fixtures/first-schema.json was dumped from it).
 */
const preReleaseMigrations = [
  "keys and usage",
  "owner tier",
  "owners and creators",
  "disabled keys and metadata",
  "layered limits",
  "graceful rotation",
  "events",
  "environments and IP allowlists",
  "once-only events",
  "webhook outbox",
  "expiring keys",
  "usage retention",
  "record versions",
].map((name, index) => ({ version: index + 1, name }));

/**
 * `schema` as a pre-release build's `migrate` left it at its version `upTo`: the tables (the first
 * schema's, which version 13 had), its bookkeeping rows, and a key.
 */
async function preReleaseDatabase(db: PostgresClient, schema: string, upTo: number) {
  await db.query(`CREATE SCHEMA "${schema}"`);
  await db.query(
    `CREATE TABLE "${schema}"."keyward_migrations" (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  for (const { statements } of migrationStatements({ schema })) {
    for (const statement of statements) await db.query(statement);
  }
  for (const { version, name } of preReleaseMigrations.slice(0, upTo)) {
    await db.query(`INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES ($1, $2)`, [
      version,
      name,
    ]);
  }
  await db.query(
    `INSERT INTO "${schema}"."keyward_keys" (id, owner_id, name, scopes, tier, secret_hash, hint, created_at, created_by)
     VALUES ('key_old', 'acme', 'old key', '["profile:read"]', 'pro', $1, 'sk_live_…abcd', now(), 'acme')`,
    [hash("a")],
  );
}

/** What a refused run must leave as it was: the bookkeeping rows and the keys. */
async function snapshot(db: PostgresClient, schema: string) {
  const migrations = await db.query(
    `SELECT version, name FROM "${schema}"."keyward_migrations" ORDER BY version`,
  );
  const keys = await db.query(`SELECT id, version FROM "${schema}"."keyward_keys" ORDER BY id`);
  return { migrations: migrations.rows, keys: keys.rows };
}

/** The refusal tests, on `database`; `newSchema` names each schema a test makes (to drop after). */
function refusals(database: () => Promise<PostgresClient>, newSchema = uniqueSchema) {
  it("refuses a database a pre-release build migrated to 13, saying what to do, and changes nothing", async () => {
    const db = await database();
    const schema = newSchema("pre13");
    await preReleaseDatabase(db, schema, 13);
    const before = await snapshot(db, schema);
    const refusal = migrate(db, { schema });
    await expect(refusal).rejects.toThrow(
      `Schema "${schema}" with table prefix "keyward_" was migrated by a pre-release @keyward/postgres`,
    );
    await expect(refusal).rejects.toThrow(/versions up to 13, with "keys and usage" as version 1/);
    await expect(refusal).rejects.toThrow(/drop its Keyward tables .* and run migrate again/);
    await expect(refusal).rejects.toThrow(
      /migrate another schema or table prefix, copy each table's rows into the new tables/,
    );
    expect(await snapshot(db, schema)).toEqual(before);
    // The store refuses the same way.
    const store = postgresStore({ client: db, schema, cache: false });
    await expect(store.migrate()).rejects.toThrow(/pre-release/);
    await store.close();
  });

  it("refuses a pre-release database at any version, not only 13", async () => {
    const db = await database();
    const schema = newSchema("pre5");
    await preReleaseDatabase(db, schema, 5);
    await expect(migrate(db, { schema })).rejects.toThrow(
      /pre-release @keyward\/postgres .*versions up to 5/,
    );
  });

  it("takes a pre-release database's rows as the message says: same columns, copied table by table", async () => {
    const db = await database();
    const old = newSchema("old");
    const fresh = newSchema("new");
    await preReleaseDatabase(db, old, 13);
    expect(await migrate(db, { schema: fresh })).toEqual({
      applied: allVersions,
      version: latestVersion,
    });
    for (const table of [
      "keys",
      "key_usage",
      "allowances",
      "events",
      "event_once",
      "webhook_deliveries",
    ]) {
      await db.query(
        `INSERT INTO "${fresh}"."keyward_${table}" SELECT * FROM "${old}"."keyward_${table}"`,
      );
    }
    const store = postgresStore({ client: db, schema: fresh, cache: false });
    expect(await store.keys.findByHash(hash("a"))).toMatchObject({ id: "key_old", version: 1 });
    await store.close();
  });

  it("refuses a database a newer release migrated, and changes nothing", async () => {
    const db = await database();
    const schema = newSchema("newer");
    await migrate(db, { schema });
    const next = latestVersion + 1;
    await db.query(`INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES ($1, $2)`, [
      next,
      "from a later release",
    ]);
    const before = await snapshot(db, schema);
    await expect(migrate(db, { schema })).rejects.toThrow(
      `Schema "${schema}" with table prefix "keyward_" is at schema version ${next}, newer than this @keyward/postgres knows (${latestVersion})`,
    );
    expect(await snapshot(db, schema)).toEqual(before);
  });
}

describe("migrate refuses a schema it cannot serve, on PGlite", () => {
  refusals(() => pglite.get());
});

describeOnServer("migrate refuses a schema it cannot serve, on the real server", () => {
  const pool = serverPool({ max: 2 });
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(pool, schema);
    await pool.end();
  });
  refusals(
    async () => pool,
    (label) => {
      schemas.push(uniqueSchema(label));
      return schemas.at(-1)!;
    },
  );
});
