/**
 * Timing project (vitest.timing.config.ts): how long Keyward takes to answer while PostgreSQL hangs
 * behind a paused proxy. hung.test.ts (unit suite) asserts what the answers are and that the
 * deadline gave them (timeouts, 5xx, recovery); this file bounds their latency: the deadline plus a
 * margin, and most requests refused at once by the open circuit.
 */
import { StoreUnavailableError } from "@keyward/core/toolkit";
import { mintJwt } from "@keyward/testing";
import pg from "pg";
import postgres from "postgres";
import { expect, it } from "vitest";
import { migrate, postgresJsClient, postgresStore } from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  serverUrl,
  sleep,
  uniqueSchema,
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
/** Room for timers and the event loop on a loaded two-core machine: a bound, not a benchmark. */
const marginMs = 300;

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

/** `work`'s rejection, and how long it took to come. */
async function failure(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await work().then(
    () => new Error("resolved, though the database hangs"),
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

describeOnServer("PostgreSQL hung: how long the answers take", () => {
  it("pg.Pool: every kind of request within the deadline plus a margin, most at once", async () => {
    const timeoutMs = 400;
    const { proxy, schema } = await hungSchema("hungtime");
    const pool = new pg.Pool({
      connectionString: proxy.url,
      max: 4,
      application_name: applicationName("hungtime"),
    });
    cleanups.push(() => pool.end());
    const store = postgresStore({ client: pool, schema, cache: false, timeoutMs, onError() {} });
    cleanups.push(() => store.close());
    const keyward = keywardOn(store, () => {});
    cleanups.push(() => keyward.close());
    const send = requester(keyward, await mintJwt(jwtSecret, { sub: "hung-user", tier: "free" }));
    const { id, key } = await keyward.keys.create({
      ownerId: "hung-user",
      accountTier: "free",
      name: "verified before",
      scopes: ["profile:read"],
      tier: "free",
    });
    expect((await send.verify("known key", key)).status).toBe(200);

    proxy.pause();
    const unknown = unknownKey();
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
    await sleep(600);
    during.push(...(await Promise.all(all())));
    console.info(
      `paused: ${during.length} requests, slowest ${Math.max(...during.map((o) => o.ms)).toFixed(0)} ms (deadline ${timeoutMs} ms)`,
    );
    for (const outcome of during) {
      expect(outcome.ms, outcome.request).toBeLessThan(timeoutMs + marginMs);
      expect(outcome.status, outcome.request).toBeGreaterThanOrEqual(500);
    }
    // Not hammered: once the circuit opened, requests were refused without waiting.
    expect(during.filter((o) => o.ms < timeoutMs / 2).length).toBeGreaterThan(during.length / 2);
  });

  it("postgres.js and a single pg.Client: queries and transactions give up within the deadline plus a margin", async () => {
    const timeoutMs = 300;
    const { proxy, schema } = await hungSchema("hungtimedrv");
    const sql = postgres(proxy.url, { max: 2, onnotice: () => {} });
    cleanups.push(() => sql.end({ timeout: 1 }));
    const client = new pg.Client({ connectionString: proxy.url });
    client.on("error", () => {});
    await client.connect();
    cleanups.push(() => client.end());
    const stores = [
      postgresStore({
        client: postgresJsClient(sql),
        schema,
        timeoutMs,
        cache: false,
        onError() {},
      }),
      postgresStore({ client, schema, timeoutMs, cache: false, onError() {} }),
    ];
    const hash = hasher.hash(unknownKey());
    for (const store of stores) {
      cleanups.push(() => store.close());
      await expect(store.keys.findByHash(hash)).resolves.toBeNull();
    }

    proxy.pause();
    for (const store of stores) {
      const lookup = await failure(() => store.keys.findByHash(hash));
      const migration = await failure(() => store.migrate());
      for (const { error, ms } of [lookup, migration]) {
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(ms).toBeLessThan(timeoutMs + marginMs);
      }
    }
  });
});
