/**
 * PostgreSQL hanging under a running Keyward, on the real server, through a TCP proxy that stops
 * forwarding without closing anything: every kind of request is answered, as a 5xx with a string
 * detail, because the store's deadline fired (a timeout, not a hang: hung.timing.test.ts, in the
 * timing project, bounds how long that took); a connection that hung is destroyed, not
 * returned to the pool; service comes back on its own once the database answers again; and the
 * same deadline holds on postgres.js and on a single `pg.Client`. No driver timeout is set
 * anywhere: the store's deadline must hold by itself.
 *
 * Nothing here depends on how fast the machine is. A call the paused proxy holds can only end at
 * the deadline, so a short one is safe there; calls that must succeed (before the pause and after
 * the resume) go through a store on the same client with a deadline long enough for a loaded
 * machine (`healthyTimeoutMs`), or are retried until they do (`waitFor`).
 */
import { type CachedKeyStore, StoreUnavailableError } from "@keyward/core/toolkit";
import { mintJwt } from "@keyward/testing";
import pg from "pg";
import postgres from "postgres";
import { expect, it } from "vitest";
import {
  migrate,
  postgresInvalidationChannel,
  postgresJsClient,
  postgresStore,
} from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  serverUrl,
  sleep,
  uniqueSchema,
  waitFor,
} from "./support/databases.js";
import {
  applicationName,
  cleanupAfterEach,
  hasher,
  jwtSecret,
  keywardOn,
  type Outcome,
  requester,
  unknownKey,
} from "./support/fault-harness.js";
import { startPausableProxy } from "./support/pausable-proxy.js";

const { cleanups, proxies } = cleanupAfterEach();

/** The deadline of calls that are expected to succeed: far above a busy machine's slowest call. */
const healthyTimeoutMs = 30_000;

describeOnServer("PostgreSQL hung behind a paused proxy", () => {
  const timeoutMs = 400;
  /**
   * The deadline of the store a whole Keyward runs on, which must also serve the requests before
   * the pause and after the resume: long enough for a loaded machine, short enough that the
   * three calls which open the circuit stay within the test's time.
   */
  const keywardTimeoutMs = 2_000;

  async function setup(label: string) {
    const proxy = await startPausableProxy(serverUrl);
    proxies.push(proxy);
    cleanups.push(() => proxy.close());
    const schema = uniqueSchema(label);
    cleanups.push(async () => {
      const direct = new pg.Client({ connectionString: serverUrl });
      await direct.connect();
      await dropSchema(direct, schema).finally(() => direct.end());
    });
    // No driver timeouts at all: the store's deadline must hold by itself.
    const pool = new pg.Pool({
      connectionString: proxy.url,
      max: 4,
      application_name: applicationName(label),
    });
    cleanups.push(() => pool.end());
    await migrate(pool, { schema });
    return { proxy, pool, schema };
  }

  it("the proxy holds bytes while paused and delivers them on resume", async () => {
    const { proxy, pool } = await setup("proxy");
    await pool.query("SELECT 1");
    proxy.pause();
    let answered = false;
    const query = pool.query("SELECT 2 AS two").then((result) => {
      answered = true;
      return result.rows;
    });
    await sleep(300);
    expect(answered).toBe(false);
    proxy.resume();
    await expect(query).resolves.toEqual([{ two: 2 }]);
  });

  it("destroys a connection whose query timed out instead of returning it to the pool", async () => {
    const { proxy, pool, schema } = await setup("destroy");
    const store = postgresStore({ client: pool, schema, cache: false, timeoutMs, onError() {} });
    const healthy = postgresStore({
      client: pool,
      schema,
      cache: false,
      timeoutMs: healthyTimeoutMs,
      onError() {},
    });
    cleanups.push(
      () => store.close(),
      () => healthy.close(),
    );
    const hash = hasher.hash("sk_live_not_a_real_key");
    await expect(healthy.keys.findByHash(hash)).resolves.toBeNull();
    expect(pool.totalCount).toBe(1);

    proxy.pause();
    const error = await store.keys.findByHash(hash).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ kind: "timeout", store: "PostgreSQL" });
    // Gone from the pool at once, while the database still hangs: no slot stays stuck on it.
    expect(pool.totalCount).toBe(0);

    proxy.resume();
    await waitFor(
      async () => (await store.keys.findByHash(hash).catch(() => undefined)) === null,
      30_000,
    );
  });

  it("answers every kind of request within the deadline as a 5xx, and recovers on its own", {
    timeout: 120_000,
  }, async () => {
    const { proxy, pool, schema } = await setup("hung");
    const storeErrors: unknown[] = [];
    // A channel with a quick heartbeat, so that the cache is dropped soon after the database hangs.
    const channel = postgresInvalidationChannel({
      client: pool,
      channel: `${schema}_invalidations`,
      heartbeatIntervalMs: 100,
      heartbeatTimeoutMs: keywardTimeoutMs,
      timeoutMs: keywardTimeoutMs,
      onError: () => {},
    });
    cleanups.push(() => channel.close());
    const store = postgresStore({
      client: pool,
      schema,
      timeoutMs: keywardTimeoutMs,
      invalidation: channel,
      onError: (e) => storeErrors.push(e),
    });
    cleanups.push(() => store.close());
    await store.ready;
    const cache = store.keys as CachedKeyStore;
    const keyward = keywardOn(store, () => {});
    cleanups.push(() => keyward.close());
    const jwt = await mintJwt(jwtSecret, { sub: "hung-user", tier: "free" });
    const send = requester(keyward, jwt);

    const { id, key } = await keyward.keys.create({
      ownerId: "hung-user",
      accountTier: "free",
      name: "verified before",
      scopes: ["profile:read"],
      tier: "free",
    });
    const unknown = unknownKey();
    for (let i = 0; i < 2; i++) expect((await send.verify("known key", key)).status).toBe(200);
    expect(cache.stats.hits).toBeGreaterThan(0);

    proxy.pause();
    // The LISTEN heartbeat goes unanswered: the channel cannot be heard, so the cache is dropped.
    await waitFor(async () => !cache.caching, 30_000);
    expect(cache.size).toBe(0);

    const all = () => [
      send.list(),
      send.create(),
      send.verify("unknown key", unknown),
      send.verify("known key", key),
      send.usage(id),
    ];
    const during: Outcome[] = [];
    for (const request of all()) during.push(await request);
    for (let burst = 0; burst < 3; burst++) during.push(...(await Promise.all(all())));
    // And once more after the circuit's retry interval, when a probe goes out.
    await sleep(600);
    during.push(...(await Promise.all(all())));

    console.info(
      `paused: ${during.length} requests, slowest ${Math.max(...during.map((o) => o.ms)).toFixed(0)} ms (deadline ${keywardTimeoutMs} ms), statuses ${[...new Set(during.map((o) => o.status))].join(", ")}`,
    );
    for (const outcome of during) {
      expect(outcome.status, outcome.request).toBeGreaterThanOrEqual(500);
      expect(typeof outcome.detail, outcome.request).toBe("string");
    }
    expect(new Set(during.map((o) => o.request))).toEqual(
      new Set(["list", "create", "unknown key", "known key", "usage"]),
    );
    // Answered by the deadline: the store reported calls that timed out.
    expect(
      storeErrors.some((e) => e instanceof StoreUnavailableError && e.kind === "timeout"),
    ).toBe(true);
    // Not hammered: once the circuit opened, requests were refused without a call, so far fewer
    // calls were sent (and failed) than requests were made.
    expect(storeErrors.length).toBeLessThan(during.length / 2);

    proxy.resume();
    const recovery = await waitFor(
      async () => (await send.verify("known key", key)).status === 200,
      30_000,
    );
    const after = [];
    for (const request of all()) after.push(await request);
    console.info(`resumed: served again after ${recovery.toFixed(0)} ms`);
    expect(after.map((outcome) => [outcome.request, outcome.status])).toEqual([
      ["list", 200],
      ["create", 201],
      ["unknown key", 401],
      ["known key", 200],
      ["usage", 200],
    ]);
    // The cache comes back with the channel.
    await waitFor(async () => cache.caching, 30_000);
  });
});

describeOnServer("PostgreSQL hung, on the other drivers", () => {
  const timeoutMs = 300;

  /** `work`'s rejection, and how long it took to come. */
  async function failure(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
    const started = performance.now();
    const error = await work().then(
      () => new Error("resolved, though the database hangs"),
      (e: unknown) => e,
    );
    return { error, ms: performance.now() - started };
  }

  async function hungSchema(label: string) {
    const proxy = await startPausableProxy(serverUrl);
    proxies.push(proxy);
    cleanups.push(() => proxy.close());
    const schema = uniqueSchema(label);
    const direct = new pg.Client({ connectionString: serverUrl });
    await direct.connect();
    cleanups.push(() => direct.end());
    cleanups.push(() => dropSchema(direct, schema));
    await migrate(direct, { schema });
    return { proxy, schema };
  }

  it("postgres.js: queries and transactions (BEGIN included) give up at the deadline", async () => {
    const { proxy, schema } = await hungSchema("pgjs");
    const sql = postgres(proxy.url, { max: 2, onnotice: () => {} });
    cleanups.push(() => sql.end({ timeout: 1 }));
    const client = postgresJsClient(sql);
    const store = postgresStore({ client, schema, timeoutMs, cache: false, onError() {} });
    const healthy = postgresStore({
      client,
      schema,
      timeoutMs: healthyTimeoutMs,
      cache: false,
      onError() {},
    });
    cleanups.push(
      () => store.close(),
      () => healthy.close(),
    );
    const hash = hasher.hash(unknownKey());
    await expect(healthy.keys.findByHash(hash)).resolves.toBeNull();
    await expect(healthy.migrate()).resolves.toMatchObject({ applied: [] });

    proxy.pause();
    const lookup = await failure(() => store.keys.findByHash(hash));
    const migration = await failure(() => store.migrate());
    for (const { error } of [lookup, migration]) {
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ kind: "timeout" });
    }

    proxy.resume();
    await waitFor(
      async () => (await store.keys.findByHash(hash).catch(() => undefined)) === null,
      30_000,
    );
    await expect(healthy.migrate()).resolves.toMatchObject({ applied: [] });
  });

  it("a single pg.Client: queries and transactions give up at the deadline", async () => {
    const { proxy, schema } = await hungSchema("client");
    const client = new pg.Client({ connectionString: proxy.url });
    client.on("error", () => {});
    await client.connect();
    cleanups.push(() => client.end());
    const store = postgresStore({ client, schema, timeoutMs, cache: false, onError() {} });
    const healthy = postgresStore({
      client,
      schema,
      timeoutMs: healthyTimeoutMs,
      cache: false,
      onError() {},
    });
    cleanups.push(
      () => store.close(),
      () => healthy.close(),
    );
    const hash = hasher.hash(unknownKey());
    await expect(healthy.migrate()).resolves.toMatchObject({ applied: [] });

    proxy.pause();
    const lookup = await failure(() => store.keys.findByHash(hash));
    const migration = await failure(() => store.migrate());
    for (const { error } of [lookup, migration]) {
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ kind: "timeout" });
    }

    proxy.resume();
    await waitFor(
      async () => (await store.keys.findByHash(hash).catch(() => undefined)) === null,
      30_000,
    );
  });
});
