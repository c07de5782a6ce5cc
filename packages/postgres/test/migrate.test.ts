import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { combineStores, createKeyward, memoryStore } from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { webhooks } from "@keyward/webhooks";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { latestVersion, migrate, migrationStatements, postgresStore } from "../src/index.js";
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
/** Every migration version from `first` on: what `migrate` applies to a database at `first - 1`. */
const versionsFrom = (first: number) =>
  migrationStatements()
    .map(({ version }) => version)
    .filter((version) => version >= first);

describe("migrate on PGlite", () => {
  it("applies every migration once; a second run is a no-op", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("mig");
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(1),
      version: latestVersion,
    });
    expect(await migrate(db, { schema })).toEqual({ applied: [], version: latestVersion });
    const { rows } = await db.query<{ version: number }>(
      `SELECT version FROM "${schema}"."keyward_migrations"`,
    );
    expect(rows.map((row) => row.version)).toEqual(versionsFrom(1));
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

describe("migrate from a database the previous release (0.0.x, schema version 1) created", () => {
  /** Schema version 1 exactly as that release's `migrate` left it: its DDL and its bookkeeping row. */
  async function releasedDatabase(schema: string) {
    const db = await pglite.get();
    const [version1] = migrationStatements({ schema });
    await db.query(`CREATE SCHEMA "${schema}"`);
    await db.query(
      `CREATE TABLE "${schema}"."keyward_migrations" (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const statement of version1!.statements) await db.query(statement);
    await db.query(
      `INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES (1, 'keys and usage')`,
    );
    // Rows as that release's store wrote them (no owner_tier column existed).
    await db.query(
      `INSERT INTO "${schema}"."keyward_keys" (id, owner_id, name, scopes, tier, secret_hash, hint, created_at)
       VALUES ('key_old', 'alice', 'old key', '["profile:read"]', 'pro', $1, 'sk_live_…abcd', now())`,
      [hash("a")],
    );
    await db.query(
      `INSERT INTO "${schema}"."keyward_key_usage" (key_id, method, route, day, count, last_used_at)
       VALUES ('key_old', 'GET', '/profiles/:slug', '2026-01-01', 7, now())`,
    );
    return db;
  }

  it("adds the owner tier and keeps every key and usage row", async () => {
    const schema = uniqueSchema("up1");
    const db = await releasedDatabase(schema);
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(2),
      version: latestVersion,
    });
    const store = postgresStore({ client: db, schema, cache: false });
    const key = await store.keys.findByHash(hash("a"));
    expect(key).toMatchObject({ id: "key_old", tier: "pro", ownerTier: null, revokedAt: null });
    expect((await store.usage.read("key_old")).totalRequests).toBe(7);
    // And the new write works on migrated rows.
    const changed = await store.keys.setOwnerTier({ type: "user", id: "alice" }, "free");
    expect(changed.map((row) => [row.id, row.ownerTier])).toEqual([["key_old", "free"]]);
  });
});

describe("migrate from a database the current release (0.1.x, schema version 2) created", () => {
  /** Versions 1 and 2 as that release's `migrate` left them, with rows its store wrote. */
  async function releasedDatabase(schema: string) {
    const db = await pglite.get();
    const [version1, version2] = migrationStatements({ schema });
    await db.query(`CREATE SCHEMA "${schema}"`);
    await db.query(
      `CREATE TABLE "${schema}"."keyward_migrations" (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const statement of [...version1!.statements, ...version2!.statements]) {
      await db.query(statement);
    }
    await db.query(
      `INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES (1, 'keys and usage'), (2, 'owner tier')`,
    );
    await db.query(
      `INSERT INTO "${schema}"."keyward_keys" (id, owner_id, name, scopes, tier, secret_hash, hint, created_at, revoked_at, owner_tier)
       VALUES ('key_live', 'acme', 'live key', '["profile:read"]', 'pro', $1, 'sk_live_…abcd', now(), NULL, 'pro'),
              ('key_gone', 'acme', 'gone key', '["profile:write"]', 'free', $2, 'sk_live_…efgh', now() - interval '1 day', now(), 'pro')`,
      [hash("b"), hash("c")],
    );
    await db.query(
      `INSERT INTO "${schema}"."keyward_key_usage" (key_id, method, route, day, count, last_used_at)
       VALUES ('key_live', 'GET', '/profiles/:slug', '2026-01-01', 11, now())`,
    );
    return db;
  }

  it("adds per-key limits and the allowances table, keeping every key and usage row", async () => {
    const schema = uniqueSchema("up3");
    const db = await releasedDatabase(schema);
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(3),
      version: latestVersion,
    });
    const store = postgresStore({ client: db, schema, cache: false });
    const key = await store.keys.findByHash(hash("b"));
    expect(key).toMatchObject({ id: "key_live", ownerTier: "pro" });
    expect(key && "limits" in key).toBe(false);
    expect((await store.usage.read("key_live")).totalRequests).toBe(11);
    const limits = { credits: { remaining: 5, grantedAt: 1 } };
    expect((await store.keys.setLimits!("key_live", limits))?.limits).toEqual(limits);
    const layer = {
      layer: "credits" as const,
      bucket: "credits:key_live",
      cost: 2,
      remaining: 5,
      grantedAt: 1,
    };
    const spent = await store.allowances.consume({ owner: "user:acme", layers: [layer], now: 1 });
    expect(spent.layers[0]).toMatchObject({ allowed: true, remaining: 3 });
  });

  it("makes every existing key a user's own, created by that user, and loses nothing", async () => {
    const schema = uniqueSchema("up2");
    const db = await releasedDatabase(schema);
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(3),
      version: latestVersion,
    });
    const store = postgresStore({ client: db, schema, cache: false });
    const alice = { type: "user", id: "acme" } as const;
    const listed = await store.keys.listByOwner(alice);
    expect(listed.map((key) => [key.id, key.ownerType, key.createdBy, key.ownerTier])).toEqual([
      ["key_live", "user", "acme", "pro"],
      ["key_gone", "user", "acme", "pro"],
    ]);
    expect(await store.keys.findByHash(hash("b"))).toMatchObject({
      id: "key_live",
      scopes: ["profile:read"],
    });
    expect((await store.keys.findById("key_gone"))?.revokedAt).not.toBeNull();
    expect((await store.usage.read("key_live")).totalRequests).toBe(11);
    // An organization with the same id as that user owns keys of its own, listed apart.
    const orgKey = {
      ...listed[0]!,
      id: "key_org",
      ownerType: "organization" as const,
      createdBy: "bob",
      secretHash: hash("d"),
    };
    await store.keys.create(orgKey);
    expect(await store.keys.listByOwner({ type: "organization", id: "acme" })).toEqual([orgKey]);
    expect((await store.keys.listByOwner(alice)).map((key) => key.id)).toEqual([
      "key_live",
      "key_gone",
    ]);
    await store.close();
  });

  it("reads every existing key as its prefix's environment with no allowlist, and stores both for new ones", async () => {
    const schema = uniqueSchema("up8");
    const db = await releasedDatabase(schema);
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(3),
      version: latestVersion,
    });
    const store = postgresStore({ client: db, schema, cache: false });
    const old = await store.keys.findByHash(hash("b"));
    expect(old && ("environment" in old || "allowedIps" in old)).toBe(false);
    const keyward = createKeyward({
      store: { ...store, rateLimits: memoryRateLimitStore() },
      scopes: { "profile:read": "Read", "profile:write": "Write" },
      tiers: {
        free: { rateLimit: { limit: 9, window: "1m" } },
        pro: { rateLimit: { limit: 9, window: "1m" } },
      },
      jwt: false,
      // Test first: the old keys are still live, as their hints' prefix says.
      environments: { test: "sk_test_", live: "sk_live_" },
    });
    const listed = await keyward.keys.list("acme");
    expect(listed.map((record) => [record.id, record.environment])).toEqual([
      ["key_live", "live"],
      ["key_gone", "live"],
    ]);
    const created = await keyward.keys.create({
      ownerId: "acme",
      accountTier: "pro",
      name: "test key",
      scopes: ["profile:read"],
      tier: "pro",
      environment: "live",
      allowedIps: ["2001:db8::/32"],
    });
    const { rows } = await db.query<{ environment: string; allowed_ips: unknown }>(
      `SELECT environment, allowed_ips FROM "${schema}"."keyward_keys" WHERE id = $1`,
      [created.id],
    );
    expect(created.key).toMatch(/^sk_live_/);
    expect(rows).toEqual([{ environment: "live", allowed_ips: ["2001:db8::/32"] }]);
    // No row can hold an empty allowlist (none is NULL), whatever writes to the table.
    await expect(
      db.query(`UPDATE "${schema}"."keyward_keys" SET allowed_ips = '[]' WHERE id = $1`, [
        created.id,
      ]),
    ).rejects.toThrow(/check constraint/);
    await keyward.close();
  });
});

describe("migrate from a database the 0.2 development line (schema version 5) created", () => {
  /**
   * Versions 1 to 5 as `migrate` left them before graceful rotation, with rows of every kind that
   * schema could hold: a rotated key, a disabled one with metadata, an organization's, limits.
   */
  async function version5Database(schema: string) {
    const db = await pglite.get();
    const upTo5 = migrationStatements({ schema }).filter(({ version }) => version <= 5);
    await db.query(`CREATE SCHEMA "${schema}"`);
    await db.query(
      `CREATE TABLE "${schema}"."keyward_migrations" (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const { version, name, statements } of upTo5) {
      for (const statement of statements) await db.query(statement);
      await db.query(
        `INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES ($1, $2)`,
        [version, name],
      );
    }
    await db.query(
      `INSERT INTO "${schema}"."keyward_keys" (id, owner_id, owner_type, created_by, name, scopes, tier,
         secret_hash, hint, created_at, rotated_at, disabled_at, metadata, limits, owner_tier)
       VALUES ('key_rot', 'acme', 'user', NULL, 'rotated', '["profile:read"]', 'pro', $1, 'sk_live_…abcd',
                now() - interval '2 days', now() - interval '1 day', NULL, NULL, NULL, 'pro'),
              ('key_off', 'acme', 'user', 'acme', 'disabled', '["profile:read"]', 'free', $2, 'sk_live_…efgh',
                now(), NULL, now(), '{"team":"ops"}', '{"credits":{"remaining":5,"grantedAt":1}}', 'pro'),
              ('key_org', 'acme', 'organization', 'bob', 'org', '["profile:write"]', 'free', $3, 'sk_live_…ijkl',
                now(), NULL, NULL, NULL, NULL, NULL)`,
      [hash("1"), hash("2"), hash("3")],
    );
    return db;
  }

  it("adds the previous secret to every key as none, keeping every field", async () => {
    const schema = uniqueSchema("up6");
    const db = await version5Database(schema);
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(6),
      version: latestVersion,
    });
    const store = postgresStore({ client: db, schema, cache: false });
    const keys = await Promise.all([hash("1"), hash("2"), hash("3")].map(store.keys.findByHash));
    expect(keys.map((key) => key?.id)).toEqual(["key_rot", "key_off", "key_org"]);
    for (const key of keys) {
      expect(key).toMatchObject({ previousSecretHash: null, previousSecretExpiresAt: null });
    }
    expect(keys[0]).toMatchObject({ createdBy: "acme", ownerTier: "pro" });
    expect(keys[0]?.rotatedAt).not.toBeNull();
    expect(keys[1]).toMatchObject({
      metadata: { team: "ops" },
      limits: { credits: { remaining: 5 } },
    });
    expect(keys[1]?.disabledAt).not.toBeNull();
    expect(keys[2]).toMatchObject({ ownerType: "organization", createdBy: "bob" });
    await store.close();
  });

  it("rotates a migrated key with a grace period: both secrets found until the next rotation", async () => {
    const schema = uniqueSchema("up6g");
    const db = await version5Database(schema);
    await migrate(db, { schema });
    const store = postgresStore({ client: db, schema, cache: false });
    const graceEnd = Date.parse("2030-01-01T00:00:00.000Z");
    const rotated = await store.keys.rotate({
      id: "key_rot",
      expectedHash: hash("1"),
      secretHash: hash("4"),
      hint: "sk_live_…mnop",
      rotatedAt: Date.now(),
      previousSecretExpiresAt: graceEnd,
    });
    expect(rotated).toMatchObject({
      previousSecretHash: hash("1"),
      previousSecretExpiresAt: graceEnd,
    });
    expect((await store.keys.findByHash(hash("1")))?.id).toBe("key_rot");
    expect((await store.keys.findByHash(hash("4")))?.id).toBe("key_rot");
    // A malformed previous hash is refused by the column's check, like the current one's.
    await expect(
      db.query(
        `UPDATE "${schema}"."keyward_keys" SET previous_secret_hash = 'x' WHERE id = 'key_org'`,
      ),
    ).rejects.toThrow();
    await store.close();
  });
});

describe("migrate from a database at schema version 5 (layered limits), before events", () => {
  it("adds the events table; existing keys keep working and their next changes are recorded", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("up5");
    await db.query(`CREATE SCHEMA "${schema}"`);
    await db.query(
      `CREATE TABLE "${schema}"."keyward_migrations" (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const migration of migrationStatements({ schema }).filter((m) => m.version <= 5)) {
      for (const statement of migration.statements) await db.query(statement);
      await db.query(
        `INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES ($1, $2)`,
        [migration.version, migration.name],
      );
    }
    await db.query(
      `INSERT INTO "${schema}"."keyward_keys" (id, owner_id, name, scopes, tier, secret_hash, hint, created_at, owner_tier)
       VALUES ('key_before000000000000000000', 'acme', 'old key', '["profile:read"]', 'free', $1, 'sk_live_…abcd', now(), 'free')`,
      [hash("e")],
    );
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(6),
      version: latestVersion,
    });

    const store = postgresStore({ client: db, schema, cache: false });
    const keyward = createKeyward({
      store: combineStores(store, memoryStore()),
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      events: { pruneIntervalMs: false },
    });
    const revoked = await keyward.keys.revoke("acme", "key_before000000000000000000");
    expect(revoked.status).toBe("revoked");
    const { data } = await keyward.events.list({
      owner: "acme",
      keyId: "key_before000000000000000000",
    });
    expect(data.map((event) => [event.type, event.actor])).toEqual([
      ["key.revoked", { type: "operator" }],
    ]);
    await keyward.close();
  });
});

describe("migrate from a database at schema version 8 (environments), before once-only events", () => {
  it("adds the once-key table; events already written stay, and appends fire once", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("up8");
    await db.query(`CREATE SCHEMA "${schema}"`);
    await db.query(
      `CREATE TABLE "${schema}"."keyward_migrations" (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const migration of migrationStatements({ schema }).filter((m) => m.version <= 8)) {
      for (const statement of migration.statements) await db.query(statement);
      await db.query(
        `INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES ($1, $2)`,
        [migration.version, migration.name],
      );
    }
    await db.query(
      `INSERT INTO "${schema}"."keyward_events" (id, type, occurred_at, owner_type, owner_id, key_id, actor, data)
       VALUES ('evt_before', 'key.revoked', '2026-03-01T00:00:00Z', 'user', 'acme', 'key_before', '{"type":"operator"}', '{}')`,
    );
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(9),
      version: latestVersion,
    });

    const store = postgresStore({ client: db, schema, cache: false });
    const owner = { type: "user", id: "acme" } as const;
    const now = Date.parse("2026-03-02T00:00:00Z");
    const event = (id: string) =>
      ({
        id,
        type: "key.revoked",
        occurredAt: now,
        owner,
        keyId: "key_before",
        actor: { type: "operator" },
        data: {},
      }) as const;
    const once = { key: "expiring:key_before", until: now + 1_000 };
    expect(await store.keys.events!.append([{ event: event("evt_a"), once }], now)).toHaveLength(1);
    expect(await store.keys.events!.append([{ event: event("evt_b"), once }], now)).toHaveLength(0);
    const listed = await store.keys.events!.list({ owner, limit: 10 });
    expect(listed.map((e) => e.id)).toEqual(["evt_a", "evt_before"]);
    await store.close();
  });
});

describe("migrate from a database at the version before the webhook outbox (10)", () => {
  it("adds the outbox: events already stored are not delivered, new ones are, signed", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("up10");
    await db.query(`CREATE SCHEMA "${schema}"`);
    await db.query(
      `CREATE TABLE "${schema}"."keyward_migrations" (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const migration of migrationStatements({ schema }).filter((m) => m.version < 10)) {
      for (const statement of migration.statements) await db.query(statement);
      await db.query(
        `INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES ($1, $2)`,
        [migration.version, migration.name],
      );
    }
    // A key and its event, written before the outbox existed.
    await db.query(
      `INSERT INTO "${schema}"."keyward_keys" (id, owner_id, name, scopes, tier, secret_hash, hint, created_at, owner_tier)
       VALUES ('key_before000000000000000000', 'acme', 'old key', '["profile:read"]', 'free', $1, 'sk_live_…abcd', now(), 'free')`,
      [hash("f")],
    );
    await db.query(
      `INSERT INTO "${schema}"."keyward_events" (id, type, occurred_at, owner_type, owner_id, key_id, actor, data)
       VALUES ('evt_before00000000000000000', 'key.created', now(), 'user', 'acme', 'key_before000000000000000000', '{"type":"operator"}', '{}')`,
    );
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(10),
      version: latestVersion,
    });

    const secret = `whsec_${Buffer.from(new Uint8Array(32).fill(7)).toString("base64")}`;
    const received: { id: string; type: string }[] = [];
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const event = new Webhook(secret).verify(
        Buffer.concat(chunks).toString("utf8"),
        request.headers as Record<string, string>,
      ) as { id: string; type: string };
      received.push({ id: event.id, type: event.type });
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;

    const store = postgresStore({ client: db, schema, cache: false });
    const keyward = createKeyward({
      store: combineStores(store, memoryStore()),
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      events: { pruneIntervalMs: false },
      features: [
        webhooks({
          endpoints: [{ id: "hooks", url: `http://127.0.0.1:${port}/`, secret }],
          pollIntervalMs: false,
        }),
      ],
    });
    await keyward.keys.revoke("acme", "key_before000000000000000000");
    expect(await keyward.webhooks.deliverNow()).toMatchObject({ dispatched: 1, delivered: 1 });
    expect(received).toEqual([{ id: expect.stringMatching(/^evt_/), type: "key.revoked" }]);
    const { data } = await keyward.webhooks.deliveries();
    expect(data.map((delivery) => [delivery.eventId, delivery.status])).toEqual([
      [received[0]!.id, "delivered"],
    ]);
    // Pruning the events takes their deliveries with them.
    await db.query(`DELETE FROM "${schema}"."keyward_events"`);
    expect((await keyward.webhooks.deliveries()).data).toEqual([]);
    await keyward.close();
    server.close();
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
      { applied: versionsFrom(1), version: latestVersion },
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

describe("migrate from a database at the schema before usage retention (every version before 12)", () => {
  it("adds the day index, keeps every usage row, and the store then prunes into rollups", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("up12");
    const before = migrationStatements({ schema }).filter(({ version }) => version < 12);
    await db.query(`CREATE SCHEMA "${schema}"`);
    await db.query(
      `CREATE TABLE "${schema}"."keyward_migrations" (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const { version, name, statements } of before) {
      for (const statement of statements) await db.query(statement);
      await db.query(
        `INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES ($1, $2)`,
        [version, name],
      );
    }
    await db.query(
      `INSERT INTO "${schema}"."keyward_key_usage" (key_id, method, route, day, count, last_used_at)
       VALUES ('key_a', 'GET', '/p', '2026-01-01', 11, '2026-01-01T10:00:00Z'),
              ('key_a', 'GET', '/p', '2026-01-02', 4, '2026-01-02T10:00:00Z'),
              ('key_a', 'POST', '/p', '2026-01-03', 2, '2026-01-03T10:00:00Z')`,
    );
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(12),
      version: latestVersion,
    });
    const { rows } = await db.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'keyward_usage_day_idx'`,
      [schema],
    );
    expect(rows[0]?.indexdef).toMatch(/\(day\)/);
    const store = postgresStore({ client: db, schema, cache: false });
    expect((await store.usage.read("key_a")).totalRequests).toBe(17);
    expect(await store.usage.prune!("2026-01-03")).toBe(2);
    expect(await store.usage.read("key_a")).toEqual({
      keyId: "key_a",
      totalRequests: 17,
      lastUsedAt: Date.parse("2026-01-03T10:00:00Z"),
      endpoints: [
        { method: "GET", route: "/p", count: 15 },
        { method: "POST", route: "/p", count: 2 },
      ],
      daily: [{ date: "2026-01-03", count: 2 }],
    });
  });
});

describe("migrate from a database at the schema before record versions (every version before 13)", () => {
  it("reads every stored key as version 1, and updates from there by compare-and-set", async () => {
    const db = await pglite.get();
    const schema = uniqueSchema("up13");
    const before = migrationStatements({ schema }).filter(({ version }) => version < 13);
    await db.query(`CREATE SCHEMA "${schema}"`);
    await db.query(
      `CREATE TABLE "${schema}"."keyward_migrations" (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const { version, name, statements } of before) {
      for (const statement of statements) await db.query(statement);
      await db.query(
        `INSERT INTO "${schema}"."keyward_migrations" (version, name) VALUES ($1, $2)`,
        [version, name],
      );
    }
    await db.query(
      `INSERT INTO "${schema}"."keyward_keys" (id, owner_id, name, scopes, tier, secret_hash, hint, created_at, owner_tier)
       VALUES ('key_v', 'acme', 'old key', '["profile:read","profile:write"]', 'pro', $1, 'sk_live_…abcd', now(), 'pro')`,
      [hash("13")],
    );
    expect(await migrate(db, { schema })).toEqual({
      applied: versionsFrom(13),
      version: latestVersion,
    });
    const store = postgresStore({ client: db, schema, cache: false });
    expect(await store.keys.findById("key_v")).toMatchObject({ id: "key_v", version: 1 });
    const narrowed = await store.keys.update("key_v", { scopes: ["profile:read"] }, undefined, 1);
    expect(narrowed).toMatchObject({ scopes: ["profile:read"], version: 2 });
    expect(
      await store.keys.update("key_v", { scopes: ["profile:write"] }, undefined, 1),
    ).toBeNull();
    expect((await store.keys.findByHash(hash("13")))?.scopes).toEqual(["profile:read"]);
  });
});
