import type { UsageIncrement } from "@keyward/core";
import { afterAll, describe, expect, it } from "vitest";
import { migrate, type PostgresClient, postgresStore } from "../src/index.js";
import { countingClient, sharedPGlite, uniqueSchema } from "./support/databases.js";

const pglite = sharedPGlite();
afterAll(() => pglite.close());
const schema = uniqueSchema("usage");
let migrated: Promise<unknown> | undefined;
const database = async () => {
  const db = await pglite.get();
  migrated ??= migrate(db, { schema });
  await migrated;
  return db;
};

const hit = (keyId: string, overrides: Partial<UsageIncrement> = {}): UsageIncrement => ({
  keyId,
  method: "GET",
  route: "/profiles/:slug",
  day: "2026-03-01",
  count: 1,
  lastUsedAt: Date.parse("2026-03-01T10:00:00.000Z"),
  ...overrides,
});

/** A client whose queries fail while `down` is set. */
function flakyClient(inner: PostgresClient) {
  const state = { down: false };
  const client: PostgresClient = {
    query: (text, params) =>
      state.down ? Promise.reject(new Error("connection refused")) : inner.query(text, params),
  };
  return { client, state };
}

describe("usage on Postgres", () => {
  it("writes a whole batch in one statement", async () => {
    const { client, queries } = countingClient(await database());
    const store = postgresStore({ client, schema, cache: false });
    const keys = ["a", "b", "c"].map((label) => `${label}_${schema}`);
    const batch = Array.from({ length: 500 }, (_, i) =>
      hit(keys[i % 3]!, {
        route: `/r${i % 7}`,
        day: `2026-03-0${(i % 5) + 1}`,
        lastUsedAt: 1_000 + i,
      }),
    );
    await store.usage.record(batch);
    expect(queries).toHaveLength(1);
    const report = await store.usage.read(keys[0]!);
    expect(report.totalRequests).toBe(batch.filter((x) => x.keyId === keys[0]).length);
    expect(report.lastUsedAt).toBe(1_000 + 498);
  });

  it("rejects increments that are not whole positive counts on a UTC day", async () => {
    const store = postgresStore({ client: await database(), schema, cache: false });
    await expect(store.usage.record([hit("k", { count: 0 })])).rejects.toThrow(TypeError);
    await expect(store.usage.record([hit("k", { count: 1.5 })])).rejects.toThrow(TypeError);
    await expect(store.usage.record([hit("k", { day: "2026-3-1" })])).rejects.toThrow(TypeError);
  });

  describe("buffered in the store (usageFlushIntervalMs)", () => {
    it("writes nothing per record, one statement per flush, and flushes before reads and on close", async () => {
      const { client, queries } = countingClient(await database());
      const store = postgresStore({ client, schema, cache: false, usageFlushIntervalMs: 60_000 });
      const keyId = `buffered_${schema}`;
      for (let i = 0; i < 100; i++) await store.usage.record([hit(keyId, { lastUsedAt: i })]);
      expect(queries).toHaveLength(0);
      expect((await store.usage.read(keyId)).totalRequests).toBe(100);
      expect(queries).toHaveLength(2); // one upsert, one read
      await store.usage.record([hit(keyId)]);
      await store.close();
      expect(queries).toHaveLength(3);
      const fresh = postgresStore({ client, schema, cache: false });
      expect((await fresh.usage.read(keyId)).totalRequests).toBe(101);
    });

    it("flushes on the interval", async () => {
      const { client, queries } = countingClient(await database());
      const store = postgresStore({ client, schema, cache: false, usageFlushIntervalMs: 20 });
      await store.usage.record([hit(`interval_${schema}`)]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(queries.length).toBe(1);
      await store.close();
    });

    it("keeps the counts of a failed write and writes them once the database is back", async () => {
      const db = await database();
      const { client, state } = flakyClient(db);
      const errors: unknown[] = [];
      const store = postgresStore({
        client,
        schema,
        cache: false,
        usageFlushIntervalMs: 60_000,
        onError: (error) => errors.push(error),
      });
      const keyId = `flaky_${schema}`;
      await store.usage.record([hit(keyId, { count: 3 })]);
      state.down = true;
      await expect(store.flush()).rejects.toThrow("connection refused");
      await store.usage.record([hit(keyId, { count: 4 })]);
      state.down = false;
      await store.close();
      const fresh = postgresStore({ client: db, schema, cache: false });
      expect((await fresh.usage.read(keyId)).totalRequests).toBe(7);
    });
  });
});
