/**
 * PostgreSQL dropping connections under a running Keyward, on the real server: the process stays
 * up (no pool here has an 'error' listener of its own, so the store's must be enough), failed
 * requests are 500s with a string detail, never a 401 for a valid key, and the same instance
 * serves again. *
 * Only a test's own connections are touched: each pool carries an `application_name` of its own,
 * and terminations filter on it (other test files and other people use the same server).
 */
import { mintJwt } from "@keyward/testing";
import pg from "pg";
import { expect, it } from "vitest";
import { migrate, postgresStore } from "../src/index.js";
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
  watchUnhandled,
} from "./support/fault-harness.js";
import { startPausableProxy } from "./support/pausable-proxy.js";

const { cleanups, proxies } = cleanupAfterEach();

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
