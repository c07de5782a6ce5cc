/**
 * PostgreSQL failing under a running Keyward, on the real server:
 *
 * - connections terminated (`pg_terminate_backend`) while requests are in flight: the process
 *   stays up, failed requests are 500s with a string detail, and the same instance serves again;
 * - a database that hangs (a TCP proxy that stops forwarding without closing anything): every
 *   kind of request is answered within the store's deadline plus a margin, as a 5xx with a string
 *   detail, and service comes back on its own once the database answers again; the same deadline
 *   holds on postgres.js and on a single `pg.Client`.
 *
 * Only this file's own connections are touched: each pool carries an `application_name` of its
 * own, and terminations filter on it (other test files and other people use the same server).
 * No pool here has an 'error' listener of its own: the store's must be enough.
 */
import {
  type CachedKeyStore,
  createKeyFormat,
  createKeyward,
  createSecretHasher,
  type Keyward,
  memoryRateLimitStore,
  type VerifyResult,
} from "@keyward/core";
import { StoreUnavailableError } from "@keyward/core/toolkit";
import { mintJwt } from "@keyward/testing";
import pg from "pg";
import postgres from "postgres";
import { afterEach, expect, it } from "vitest";
import {
  migrate,
  type PostgresStore,
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
import { type PausableProxy, startPausableProxy } from "./support/pausable-proxy.js";

const jwtSecret = "postgres-fault-tests-secret-0123456789";
const basePath = "http://keyward.test/api/v1/api-keys";
const route = "GET /profiles/:slug";
const hasher = createSecretHasher();

/** What one request came back with, and how long it took. */
interface Outcome {
  request: string;
  status: number;
  detail: unknown;
  ms: number;
}

/** Errors nobody handled: an 'error' event without a listener ends up here (or kills the process). */
function watchUnhandled(): { errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const record = (error: unknown) => errors.push(error);
  process.on("uncaughtException", record);
  process.on("unhandledRejection", record);
  return {
    errors,
    stop() {
      process.off("uncaughtException", record);
      process.off("unhandledRejection", record);
    },
  };
}

const cleanups: (() => Promise<unknown>)[] = [];
/** Resumed before any cleanup, so that nothing is left waiting on a paused socket. */
const proxies: PausableProxy[] = [];
afterEach(async () => {
  for (const proxy of proxies.splice(0)) proxy.resume();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

function keywardOn(store: PostgresStore, onError: (error: unknown) => void): Keyward {
  return createKeyward({
    store: {
      keys: store.keys,
      usage: store.usage,
      rateLimits: memoryRateLimitStore(),
      close: () => store.close(),
    },
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 1_000_000_000, window: "1m" } } },
    jwt: { secret: jwtSecret },
    usage: { flushIntervalMs: 50 },
    onError,
  });
}

/** The requests of the test, each as the HTTP layer (or `verify`) answers it. */
function requester(keyward: Keyward, jwt: string) {
  const timed = async (
    request: string,
    send: () => Promise<{ status: number; detail: unknown }>,
  ) => {
    const started = performance.now();
    const { status, detail } = await send();
    return { request, status, detail, ms: performance.now() - started } satisfies Outcome;
  };
  const http =
    (path: string, init: RequestInit = {}) =>
    async () => {
      const response = await keyward.handle(
        new Request(`${basePath}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" },
        }),
      );
      const body = (await response.json()) as { detail?: unknown };
      return { status: response.status, detail: body.detail };
    };
  const verify = (secret: string) => async () => {
    const result: VerifyResult = await keyward.verify(`Bearer ${secret}`, {
      scopes: ["profile:read"],
      route,
    });
    return result.ok
      ? { status: 200, detail: undefined }
      : { status: result.error.status, detail: result.error.detail };
  };
  return {
    list: () => timed("list", http("")),
    create: () =>
      timed(
        "create",
        http("", {
          method: "POST",
          body: JSON.stringify({ name: "fault", scopes: ["profile:read"], tier: "free" }),
        }),
      ),
    usage: (keyId: string) => timed("usage", http(`/${keyId}/usage`)),
    verify: (label: string, secret: string) => timed(label, verify(secret)),
  };
}

/** A well-formed key (right shape, right checksum) that no one has created. */
const unknownKey = () => createKeyFormat().generate();

const applicationName = (label: string) =>
  `kw_fault_${label}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;

describeOnServer("PostgreSQL connections terminated under load", () => {
  it("stays up, answers 500 with a string detail while they drop, and serves again", async () => {
    const unhandled = watchUnhandled();
    cleanups.push(async () => unhandled.stop());
    const name = applicationName("terminate");
    const schema = uniqueSchema("terminate");
    const pool = new pg.Pool({ connectionString: serverUrl, max: 6, application_name: name });
    cleanups.push(() => pool.end());
    const admin = new pg.Client({ connectionString: serverUrl, application_name: `${name}_admin` });
    admin.on("error", () => {});
    await admin.connect();
    cleanups.push(() => admin.end());
    cleanups.push(() => dropSchema(admin, schema));

    const storeErrors: unknown[] = [];
    const store = postgresStore({ client: pool, schema, onError: (e) => storeErrors.push(e) });
    await store.migrate();
    await store.ready;
    const keyward = keywardOn(store, () => {});
    cleanups.push(() => keyward.close());
    const jwt = await mintJwt(jwtSecret, { sub: "fault-user", tier: "free" });
    const send = requester(keyward, jwt);
    const created = await Promise.all(
      [1, 2].map(() =>
        keyward.keys.create({
          ownerId: "fault-user",
          accountTier: "free",
          name: "k",
          scopes: ["profile:read"],
          tier: "free",
        }),
      ),
    );
    const [a, b] = created as [(typeof created)[0], (typeof created)[0]];
    const round = () => [
      send.verify("verify a", a.key),
      send.list(),
      send.create(),
      send.verify("verify b", b.key),
      send.usage(a.id),
    ];
    for (const outcome of await Promise.all(round())) expect(outcome.status).toBeLessThan(300);

    // Four clients keep requests going while every connection of this pool is terminated, again
    // and again: idle ones, busy ones and the LISTEN one.
    let loading = true;
    const outcomes: Outcome[] = [];
    const clients = Array.from({ length: 4 }, async () => {
      while (loading) outcomes.push(...(await Promise.all(round())));
    });
    let terminated = 0;
    const started = performance.now();
    while (performance.now() - started < 1_500) {
      const { rowCount } = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [name],
      );
      terminated += rowCount ?? 0;
      await sleep(100);
    }
    loading = false;
    await Promise.all(clients);

    const failed = outcomes.filter((outcome) => outcome.status >= 300);
    console.info(
      `terminated ${terminated} connections during ${outcomes.length} requests: ${failed.length} answered 500, ${storeErrors.length} failures reported to onError`,
    );
    expect(unhandled.errors).toEqual([]);
    expect(terminated).toBeGreaterThan(0);
    expect(storeErrors.length).toBeGreaterThan(0);
    for (const outcome of outcomes) {
      // A valid key is never refused with 401 because its lookup failed.
      expect([200, 201, 500], outcome.request).toContain(outcome.status);
      if (outcome.status === 500) expect(outcome.detail).toBe("Internal server error");
    }

    // Same instance, no restart: once the circuit lets calls through again, everything works.
    await waitFor(async () => (await send.verify("verify a", a.key)).status === 200, 10_000);
    const after = await Promise.all(round());
    expect(after.map((outcome) => [outcome.request, outcome.status])).toEqual([
      ["verify a", 200],
      ["list", 200],
      ["create", 201],
      ["verify b", 200],
      ["usage", 200],
    ]);
    expect(unhandled.errors).toEqual([]);
  });
});

describeOnServer("PostgreSQL terminating an idle pooled connection", () => {
  it("is reported to onError, not thrown; close() stops listening on the pool", async () => {
    const unhandled = watchUnhandled();
    cleanups.push(async () => unhandled.stop());
    const name = applicationName("idle");
    const pool = new pg.Pool({ connectionString: serverUrl, max: 2, application_name: name });
    cleanups.push(() => pool.end());
    const admin = new pg.Client({ connectionString: serverUrl });
    admin.on("error", () => {});
    await admin.connect();
    cleanups.push(() => admin.end());
    const schema = uniqueSchema("idle");
    await migrate(admin, { schema });
    cleanups.push(() => dropSchema(admin, schema));

    const storeErrors: unknown[] = [];
    const store = postgresStore({
      client: pool,
      schema,
      cache: false,
      onError: (e) => storeErrors.push(e),
    });
    expect(pool.listenerCount("error")).toBe(1);
    await store.keys.findByHash(hasher.hash(unknownKey()));
    expect(pool.idleCount).toBe(1);

    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
      [name],
    );
    await waitFor(async () => storeErrors.length > 0);
    expect(storeErrors[0]).toMatchObject({ code: "57P01" });
    expect(unhandled.errors).toEqual([]);
    // The pool dropped it; the next lookup gets a new connection.
    await expect(store.keys.findByHash(hasher.hash(unknownKey()))).resolves.toBeNull();

    await store.close();
    expect(pool.listenerCount("error")).toBe(0);
  });
});

describeOnServer("PostgreSQL terminating a connection as the pool lends it", () => {
  // The server's "ready" and its "terminating connection" reach the client in one packet: the
  // connection is lent and fails within one event. Whatever checks it out must be listening for
  // its errors from that very moment, or the error is unhandled.
  const lenders: Record<string, (pool: pg.Pool, schema: string) => Promise<unknown>> = {
    "a store lookup": (pool, schema) =>
      postgresStore({ client: pool, schema, cache: false, onError() {} }).keys.findByHash(
        hasher.hash(unknownKey()),
      ),
    "migrate(pool)": (pool, schema) => migrate(pool, { schema }),
  };

  for (const [label, lend] of Object.entries(lenders)) {
    it(`${label}: fails, and the error is handled`, async () => {
      const unhandled = watchUnhandled();
      cleanups.push(async () => unhandled.stop());
      const proxy = await startPausableProxy(serverUrl);
      proxies.push(proxy);
      cleanups.push(() => proxy.close());
      const admin = new pg.Client({ connectionString: serverUrl });
      admin.on("error", () => {});
      await admin.connect();
      cleanups.push(() => admin.end());
      const schema = uniqueSchema("lent");
      await migrate(admin, { schema });
      cleanups.push(() => dropSchema(admin, schema));
      const name = applicationName("lent");
      const pool = new pg.Pool({ connectionString: proxy.url, max: 1, application_name: name });
      cleanups.push(() => pool.end());

      proxy.pause("to-client");
      const outcome = lend(pool, schema).then(
        () => "succeeded",
        (error: unknown) => error,
      );
      // The server has the connection ready (its answer is held at the proxy): terminate it there.
      await waitFor(async () => {
        const { rowCount } = await admin.query(
          "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle'",
          [name],
        );
        return rowCount === 1;
      });
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [name],
      );
      await sleep(50);
      proxy.resume();

      expect(await outcome).toBeInstanceOf(Error);
      await sleep(50);
      expect(unhandled.errors).toEqual([]);
      // The pool dropped the connection and lends a new one.
      await expect(lend(pool, schema)).resolves.toBeDefined();
    });
  }
});

describeOnServer("PostgreSQL hung behind a paused proxy", () => {
  const timeoutMs = 400;
  /** Room for timers and the event loop on a loaded two-core machine: a bound, not a benchmark. */
  const marginMs = 300;

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
    cleanups.push(() => store.close());
    const hash = hasher.hash("sk_live_not_a_real_key");
    await expect(store.keys.findByHash(hash)).resolves.toBeNull();
    expect(pool.totalCount).toBe(1);

    proxy.pause();
    const started = performance.now();
    const error = await store.keys.findByHash(hash).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(timeoutMs + marginMs);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ kind: "timeout", store: "PostgreSQL" });
    // Gone from the pool at once, while the database still hangs: no slot stays stuck on it.
    expect(pool.totalCount).toBe(0);

    proxy.resume();
    await waitFor(async () => (await store.keys.findByHash(hash).catch(() => undefined)) === null);
  });

  it("answers every kind of request within the deadline as a 5xx, and recovers on its own", async () => {
    const { proxy, pool, schema } = await setup("hung");
    const storeErrors: unknown[] = [];
    // A channel with a quick heartbeat, so that the cache is dropped soon after the database hangs.
    const channel = postgresInvalidationChannel({
      client: pool,
      channel: `${schema}_invalidations`,
      heartbeatIntervalMs: 100,
      heartbeatTimeoutMs: 200,
      timeoutMs,
      onError: () => {},
    });
    cleanups.push(() => channel.close());
    const store = postgresStore({
      client: pool,
      schema,
      timeoutMs,
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
    await waitFor(async () => !cache.caching, 2_000);
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
      `paused: ${during.length} requests, slowest ${Math.max(...during.map((o) => o.ms)).toFixed(0)} ms (deadline ${timeoutMs} ms), statuses ${[...new Set(during.map((o) => o.status))].join(", ")}`,
    );
    for (const outcome of during) {
      expect(outcome.ms, outcome.request).toBeLessThan(timeoutMs + marginMs);
      expect(outcome.status, outcome.request).toBeGreaterThanOrEqual(500);
      expect(typeof outcome.detail, outcome.request).toBe("string");
    }
    expect(new Set(during.map((o) => o.request))).toEqual(
      new Set(["list", "create", "unknown key", "known key", "usage"]),
    );
    expect(storeErrors.some((e) => e instanceof StoreUnavailableError)).toBe(true);
    // Not hammered: once the circuit opened, requests were refused without waiting, and far
    // fewer calls were sent (and failed) than requests were made.
    expect(during.filter((o) => o.ms < timeoutMs / 2).length).toBeGreaterThan(during.length / 2);
    expect(storeErrors.length).toBeLessThan(during.length / 2);

    proxy.resume();
    const recovery = await waitFor(
      async () => (await send.verify("known key", key)).status === 200,
      10_000,
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
    await waitFor(async () => cache.caching, 10_000);
  });
});

describeOnServer("PostgreSQL hung, on the other drivers", () => {
  const timeoutMs = 300;
  const marginMs = 300;

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
    const store = postgresStore({
      client: postgresJsClient(sql),
      schema,
      timeoutMs,
      cache: false,
      onError() {},
    });
    cleanups.push(() => store.close());
    const hash = hasher.hash(unknownKey());
    await expect(store.keys.findByHash(hash)).resolves.toBeNull();
    await expect(store.migrate()).resolves.toMatchObject({ applied: [] });

    proxy.pause();
    const lookup = await failure(() => store.keys.findByHash(hash));
    const migration = await failure(() => store.migrate());
    for (const { error, ms } of [lookup, migration]) {
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeLessThan(timeoutMs + marginMs);
    }

    proxy.resume();
    await waitFor(async () => (await store.keys.findByHash(hash).catch(() => undefined)) === null);
    await expect(store.migrate()).resolves.toMatchObject({ applied: [] });
  });

  it("a single pg.Client: queries and transactions give up at the deadline", async () => {
    const { proxy, schema } = await hungSchema("client");
    const client = new pg.Client({ connectionString: proxy.url });
    client.on("error", () => {});
    await client.connect();
    cleanups.push(() => client.end());
    const store = postgresStore({ client, schema, timeoutMs, cache: false, onError() {} });
    cleanups.push(() => store.close());
    const hash = hasher.hash(unknownKey());
    await expect(store.migrate()).resolves.toMatchObject({ applied: [] });

    proxy.pause();
    const lookup = await failure(() => store.keys.findByHash(hash));
    const migration = await failure(() => store.migrate());
    for (const { error, ms } of [lookup, migration]) {
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeLessThan(timeoutMs + marginMs);
    }

    proxy.resume();
    await waitFor(async () => (await store.keys.findByHash(hash).catch(() => undefined)) === null);
  });
});
