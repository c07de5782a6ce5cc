/**
 * The PostgreSQL store reports its calls too (the tests' server, KEYWARD_TEST_DATABASE_URL): each query a
 * `keyward.store` span under the `keyward.verify` that made it, with the SQL command as its
 * operation (never the statement or its values), `keyward.store.duration` by store, operation and
 * outcome, and `keyward.store.breaker` at 0 while it answers.
 */
import { combineStores, createKeyward, memoryStore } from "@keyward/core";
import { postgresStore } from "@keyward/postgres";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { serverUrl } from "../../postgres/test/support/databases.js";
import { otel } from "../src/index.js";
import { meterSdk, traceSdk } from "./sdk.js";

const pool = new pg.Pool({ connectionString: serverUrl, max: 4 });
const schema = `kw_otel_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

describe("otel(): the PostgreSQL store's calls", () => {
  it("are spans under keyward.verify and points of keyward.store.duration; the breaker reads 0", async () => {
    const traces = traceSdk();
    const meters = meterSdk();
    const store = postgresStore({ client: pool, schema, cache: false, invalidation: false });
    await store.migrate();
    const keyward = createKeyward({
      store: combineStores(store, memoryStore()),
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      logger: false,
      features: [
        otel({ meterProvider: meters.meterProvider, tracerProvider: traces.tracerProvider }),
      ],
    });
    const { key } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    traces.exporter.reset();
    expect((await keyward.verify(`Bearer ${key}`, { route: "GET /x" })).ok).toBe(true);
    await traces.tracerProvider.forceFlush();
    const spans = traces.exporter.getFinishedSpans();
    const verify = spans.find((span) => span.name === "keyward.verify")!;
    const children = spans.filter(
      (span) => span.parentSpanContext?.spanId === verify.spanContext().spanId,
    );
    expect(children.map((span) => span.attributes)).toEqual([
      {
        "keyward.store": "postgresql",
        "keyward.operation": "SELECT",
        "db.system.name": "postgresql",
        "keyward.outcome": "ok",
      },
    ]);
    const metrics = await meters.collect();
    const operations = new Set(
      metrics
        .get("keyward.store.duration")!
        .map(({ attributes }) =>
          [
            attributes["keyward.store"],
            attributes["keyward.operation"],
            attributes["keyward.outcome"],
          ].join(" "),
        ),
    );
    expect(operations).toContain("postgresql SELECT ok");
    // The key's creation: a transaction's statements, each a command word only.
    for (const operation of operations) expect(operation).toMatch(/^postgresql [A-Z]+ (ok|error)$/);
    expect(metrics.get("keyward.store.breaker")).toEqual([
      { attributes: { "keyward.store": "postgresql" }, value: 0 },
    ]);
    await keyward.close();
    await traces.shutdown();
    await meters.shutdown();
  });
});
