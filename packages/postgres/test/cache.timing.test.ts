/**
 * Timing project (vitest.timing.config.ts): how soon a change made through one store is seen by
 * another store's verification cache. cache.test.ts (unit suite) asserts that it is seen.
 */
import { storedKey } from "@keyward/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, postgresStore } from "../src/index.js";
import { closeOpenedAfterEach, evictionDelay, opened } from "./support/cache-eviction.js";
import {
  describeOnServer,
  dropSchema,
  percentile,
  serverPool,
  sharedPGlite,
  uniqueSchema,
  waitFor,
} from "./support/databases.js";

const pglite = sharedPGlite();
afterAll(() => pglite.close());

closeOpenedAfterEach();

describe("verification cache on PGlite: eviction delay", () => {
  const schema = uniqueSchema("cachetime");
  beforeAll(async () => {
    await migrate(await pglite.get(), { schema });
  });

  it("evicts on another store within 100 ms", async () => {
    const db = await pglite.get();
    const a = await opened(postgresStore({ client: db, schema }));
    const b = await opened(postgresStore({ client: db, schema }));
    expect(await evictionDelay(a, b, "revoke")).toBeLessThan(100);
    expect(await evictionDelay(a, b, "rotate")).toBeLessThan(100);
  });
});

describeOnServer("verification cache on the real server: NOTIFY delays", () => {
  const schema = uniqueSchema("cachetime");
  const poolA = serverPool();
  const poolB = serverPool();
  beforeAll(async () => {
    await migrate(poolA, { schema });
  });
  afterAll(async () => {
    await dropSchema(poolA, schema);
    await Promise.all([poolA.end(), poolB.end()]);
  });

  it("evicts on the other instance with a p99 under 50 ms", async () => {
    const a = await opened(postgresStore({ client: poolA, schema }));
    const b = await opened(postgresStore({ client: poolB, schema }));
    const delays: Record<"revoke" | "rotate", number[]> = { revoke: [], rotate: [] };
    for (let trial = 0; trial < 50; trial++) {
      delays.revoke.push(await evictionDelay(a, b, "revoke"));
      delays.rotate.push(await evictionDelay(a, b, "rotate"));
    }
    for (const [change, values] of Object.entries(delays)) {
      const [p50, p99] = [percentile(values, 50), percentile(values, 99)];
      console.info(
        `[@keyward/postgres] in-process ${change} → eviction on B: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`,
      );
      expect(p99).toBeLessThan(50);
    }
  });

  it("applies an allowlist set on the other instance with a p99 under 50 ms", async () => {
    const a = await opened(postgresStore({ client: poolA, schema }));
    const b = await opened(postgresStore({ client: poolB, schema }));
    const delays: number[] = [];
    for (let trial = 0; trial < 20; trial++) {
      const key = storedKey();
      await a.keys.create(key);
      await b.keys.findByHash(key.secretHash);
      await a.keys.update(key.id, { fields: { allowedIps: ["203.0.113.7"] } });
      delays.push(
        await waitFor(
          async () =>
            JSON.stringify((await b.keys.findByHash(key.secretHash))?.fields?.allowedIps) ===
            '["203.0.113.7"]',
          2_000,
        ),
      );
    }
    console.info(
      `[@keyward/postgres] in-process allowlist change → applied on B: p50 ${percentile(delays, 50).toFixed(2)} ms, p99 ${percentile(delays, 99).toFixed(2)} ms`,
    );
    expect(percentile(delays, 99)).toBeLessThan(50);
  });
});
