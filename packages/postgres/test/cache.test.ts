import type { StoredKey } from "@keyward/core";
import { type CachedKeyStore, type ChannelState, cachedKeyStore } from "@keyward/core/toolkit";
import { storedKey } from "@keyward/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  migrate,
  type PostgresClient,
  postgresInvalidationChannel,
  postgresStore,
} from "../src/index.js";
import {
  closeAfterTest,
  closeOpenedAfterEach,
  evictionDelay,
  opened,
} from "./support/cache-eviction.js";
import {
  countingClient,
  describeOnServer,
  dropSchema,
  serverPool,
  serverUrl,
  sharedPGlite,
  uniqueSchema,
  waitFor,
} from "./support/databases.js";

const pglite = sharedPGlite();
afterAll(() => pglite.close());

closeOpenedAfterEach();

describe("verification cache on PGlite", () => {
  const schema = uniqueSchema("cache");
  beforeAll(async () => {
    await migrate(await pglite.get(), { schema });
  });

  it("answers a warm lookup without a query", async () => {
    const { client, queries } = countingClient(await pglite.get());
    const store = await opened(postgresStore({ client, schema }));
    const key = storedKey();
    await store.keys.create(key);
    queries.length = 0;
    expect(await store.keys.findByHash(key.secretHash)).toEqual(key);
    expect(queries).toHaveLength(1);
    for (let i = 0; i < 20; i++) expect(await store.keys.findByHash(key.secretHash)).toEqual(key);
    expect(queries).toHaveLength(1);
  });

  it("evicts on another store when one rotates or revokes", async () => {
    const db = await pglite.get();
    const a = await opened(postgresStore({ client: db, schema }));
    const b = await opened(postgresStore({ client: db, schema }));
    // Evicted at all (within waitFor's 2 s); how fast is cache.timing.test.ts's (timing project).
    await evictionDelay(a, b, "revoke");
    await evictionDelay(a, b, "rotate");
  });

  it("caches nothing by default when the client cannot listen, and locally when asked", async () => {
    const db = await pglite.get();
    const plain: PostgresClient = { query: (text, params) => db.query(text, params) };
    const { client, queries } = countingClient(plain);
    const key = storedKey();
    const uncached = postgresStore({ client, schema });
    await uncached.keys.create(key);
    queries.length = 0;
    await uncached.keys.findByHash(key.secretHash);
    await uncached.keys.findByHash(key.secretHash);
    expect(queries).toHaveLength(2);

    const local = postgresStore({ client, schema, cache: { ttlMs: 1_000 } });
    await local.ready;
    await local.keys.findByHash(key.secretHash);
    await local.keys.findByHash(key.secretHash);
    expect(queries).toHaveLength(3);
  });
});

describeOnServer("verification cache on the real server", () => {
  const schema = uniqueSchema("cache");
  const poolA = serverPool();
  const poolB = serverPool();
  beforeAll(async () => {
    await migrate(poolA, { schema });
  });
  afterAll(async () => {
    await dropSchema(poolA, schema);
    await Promise.all([poolA.end(), poolB.end()]);
  });

  it("answers a warm lookup without a query", async () => {
    const { client, queries } = countingClient(poolA);
    const store = await opened(postgresStore({ client, schema }));
    const key = storedKey();
    await store.keys.create(key);
    queries.length = 0;
    for (let i = 0; i < 20; i++) expect(await store.keys.findByHash(key.secretHash)).toEqual(key);
    expect(queries).toHaveLength(1);
  });

  it("evicts on the other instance through NOTIFY", async () => {
    const a = await opened(postgresStore({ client: poolA, schema }));
    const b = await opened(postgresStore({ client: poolB, schema }));
    // Evicted every time (within waitFor's 2 s); the p99 bound on the delay, over 50 trials, is
    // cache.timing.test.ts's (timing project).
    for (let trial = 0; trial < 5; trial++) {
      await evictionDelay(a, b, "revoke");
      await evictionDelay(a, b, "rotate");
    }
  });

  it("applies an allowlist set through one instance on the other through NOTIFY", async () => {
    const a = await opened(postgresStore({ client: poolA, schema }));
    const b = await opened(postgresStore({ client: poolB, schema }));
    // Applied every time (within waitFor's 2 s); the p99 bound on the delay is
    // cache.timing.test.ts's (timing project).
    for (let trial = 0; trial < 5; trial++) {
      const key = storedKey();
      await a.keys.create(key);
      await b.keys.findByHash(key.secretHash); // now in b's cache, without an allowlist
      expect((await b.keys.findByHash(key.secretHash))?.fields?.allowedIps ?? null).toBeNull();
      await a.keys.update(key.id, { fields: { allowedIps: ["203.0.113.7"] } });
      await waitFor(
        async () =>
          JSON.stringify((await b.keys.findByHash(key.secretHash))?.fields?.allowedIps) ===
          '["203.0.113.7"]',
        2_000,
      );
    }
  });

  it("drops its cache when the LISTEN connection dies, and listens again", async () => {
    const applicationName = `kw_listen_${schema}`.slice(0, 60);
    const states: ChannelState[] = [];
    const channel = postgresInvalidationChannel({
      connect: async () => {
        const client = new pg.Client({
          connectionString: serverUrl,
          application_name: applicationName,
        });
        await client.connect();
        return client;
      },
      publisher: poolB,
      channel: `kw_${schema}`,
      onError: () => {},
    });
    closeAfterTest(channel);
    const a = await opened(postgresStore({ client: poolA, schema, invalidation: channel }));
    const b = await opened(postgresStore({ client: poolB, schema, invalidation: channel }));
    const keysB = b.keys as CachedKeyStore;
    await channel.subscribe(
      () => {},
      (state) => states.push(state),
    );
    const key: StoredKey = storedKey();
    await a.keys.create(key);
    await keysB.findByHash(key.secretHash);
    expect(keysB.size).toBe(1);

    await poolA.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
      [applicationName],
    );
    await waitFor(async () => states.includes("interrupted"));
    expect(keysB.size).toBe(0);
    await waitFor(async () => states.at(-1) === "live", 5_000);
    expect(channel.state).toBe("live");

    // Listening again: a revocation still reaches the cache.
    await keysB.findByHash(key.secretHash);
    await a.keys.revoke(key.id, Date.now());
    await waitFor(async () => (await keysB.findByHash(key.secretHash))?.revokedAt != null);
  });

  it("lets another channel be plugged in: any InvalidationChannel works", async () => {
    const channel = postgresInvalidationChannel({
      client: poolA,
      channel: `kw_other_${schema}`.slice(0, 60),
    });
    const store = postgresStore({ client: poolA, schema, cache: false });
    const a: CachedKeyStore = cachedKeyStore(store.keys, { channel });
    const b: CachedKeyStore = cachedKeyStore(store.keys, { channel });
    for (const thing of [a, b, channel]) closeAfterTest(thing);
    await Promise.all([a.ready, b.ready]);
    const key = storedKey();
    await a.create(key);
    await b.findByHash(key.secretHash);
    await a.revoke(key.id, Date.now());
    await waitFor(async () => (await b.findByHash(key.secretHash))?.revokedAt != null);
  });
});
