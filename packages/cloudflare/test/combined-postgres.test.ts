/**
 * `combineStores(postgresStore(...), cloudflareStore(...))`: keys, usage and events on PostgreSQL,
 * rate limits, quotas and credits in the Durable Objects. combineStores takes each part from the
 * first store that has it, so the Cloudflare store gives only `rateLimits`; its limit calls then
 * find no key record of its own (the keys are PostgreSQL's), name no version to check, and go to
 * the owner's object by the owner each call carries. Run in Node (the store side, as on a Worker
 * reaching PostgreSQL through Hyperdrive) against the objects in workerd and the PostgreSQL server:
 * two Keyward instances share one key's limits (rate limit and quota) exactly, and a revocation made
 * through one is refused by the other, whose cache held the key (PostgreSQL's own cache notice: the
 * objects' version check is not in play here).
 */
import { combineStores, createKeyward } from "@keyward/core";
import { migrate, postgresStore } from "@keyward/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudflareStore } from "../src/index.js";
import { startWorkerd, type Workerd } from "./support/miniflare.js";

const databaseUrl =
  process.env.KEYWARD_TEST_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test";
const schema = `cf_combined_${process.pid}`;
let workerd: Workerd;
let pool: pg.Pool;

beforeAll(async () => {
  workerd = await startWorkerd();
  pool = new pg.Pool({ connectionString: databaseUrl, max: 4, connectionTimeoutMillis: 10_000 });
  await migrate(pool, { schema });
}, 60_000);
afterAll(async () => {
  await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
  await pool?.end();
  await workerd?.dispose();
});

describe("combineStores(postgresStore, cloudflareStore)", () => {
  /** Two instances on the combination: PostgreSQL's keys, usage and events; the objects' limits. */
  const instances = async () => {
    const namespace = await workerd.namespace();
    const instance = () => {
      const postgres = postgresStore({ client: pool, schema });
      // Picked by hand: the whole store would also lend its `allowances` (durable credits), which
      // the objects' rate-limit store cannot be seeded from; createKeyward refuses that.
      const { keys, usage, events, outbox } = postgres;
      return createKeyward({
        store: combineStores(
          { keys, usage, events, outbox, close: () => postgres.close() },
          cloudflareStore({ namespace, prefix: `comb${process.pid}_` }),
        ),
        scopes: { "profile:read": "Read" },
        tiers: {
          free: { rateLimit: { limit: 7, window: "1h" }, quota: { limit: 9, period: "month" } },
          pro: { rateLimit: { limit: 100_000, window: "1h" } },
        },
        jwt: false,
        logger: false,
      });
    };
    return [instance(), instance()] as const;
  };

  it("counts one key's limits exactly across two instances, on PostgreSQL's key records", async () => {
    const [first, second] = await instances();
    try {
      const created = await first.keys.create({
        ownerId: `owner_${process.pid}`,
        accountTier: "free",
        name: "combined",
        scopes: ["profile:read"],
        tier: "free",
      });
      const verify = (keyward: typeof first) =>
        keyward.verify(`Bearer ${created.key}`, { route: "GET /p" });
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) => verify(index % 2 === 0 ? first : second)),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(7);
      expect(results.flatMap((result) => (result.ok ? [] : [result.error.status]))).toEqual(
        Array(5).fill(429),
      );
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  }, 60_000);

  it("a revocation through one instance is refused by the other, whose cache held the key", async () => {
    const [first, second] = await instances();
    try {
      const created = await first.keys.create({
        ownerId: `revoking_${process.pid}`,
        accountTier: "pro",
        name: "revoked",
        scopes: ["profile:read"],
        tier: "pro",
      });
      const verify = () => second.verify(`Bearer ${created.key}`, { route: "GET /p" });
      expect((await verify()).ok).toBe(true);
      expect((await verify()).ok).toBe(true);
      await first.keys.revoke(`revoking_${process.pid}`, created.id);
      // PostgreSQL's notice reaches the other instance's cache within milliseconds; waited for as an
      // outcome (a loaded machine delays it), with every answer until then recorded.
      const answers: (number | "ok")[] = [];
      const deadline = Date.now() + 10_000;
      for (;;) {
        const result = await verify();
        answers.push(result.ok ? "ok" : result.error.status);
        if (!result.ok || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(answers.at(-1)).toBe(401);
      expect(answers.filter((answer) => answer !== "ok" && answer !== 401)).toEqual([]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  }, 60_000);
});
