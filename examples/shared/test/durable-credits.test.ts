/**
 * Credits are money: with limits on Redis and keys on PostgreSQL, a key's credit balance survives
 * Redis losing everything. Each suite runs two Keyward instances on a private redis-server and one
 * database (a PostgreSQL server, then PGlite), spends credits from both, and then kills and
 * restarts Redis with nothing persisted, a real loss. Each key must then go on from its saved
 * balance (PostgreSQL's `keyward_allowances`, written back about once a second and on close), never
 * from its grant again; a loss gives back at most what was spent since the last save.
 *
 * Nothing here depends on the machine's speed: the stores' calls have a test deadline far above a
 * loaded host's slowest answer (not the production default, which a busy two-core machine
 * crossed), waits are on outcomes (`expect.poll`) with a generous cap, and so are the tests'.
 */
import { combineStores, createKeyward, type Keyward } from "@keyward/core";
import { migrate, type PostgresClient, postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  sharedPGlite,
  uniqueSchema,
} from "../../../packages/postgres/test/support/databases.js";
import {
  type RedisServer,
  startRedisServer,
} from "../../../packages/redis/test/support/redis-servers.js";

const tiers = { free: { rateLimit: { limit: 1_000_000, window: "1h" } } };
/** The deadline of every store call here: these calls must succeed, however busy the host. */
const callTimeoutMs = 30_000;
/** The cap of a wait on an outcome (a balance saved about once a second) and of a test. */
const waitMs = 60_000;
const testMs = 180_000;

interface Database {
  client: PostgresClient;
  close(): Promise<void>;
}

function durableCreditsSuite(openDatabase: () => Promise<Database>): void {
  let server: RedisServer;
  let database: Database;
  const schema = uniqueSchema("credits");
  const clients: IORedis[] = [];
  const open: Keyward[] = [];

  /** A Keyward instance of its own, with its own Redis connection, as another process would have. */
  const instance = () => {
    const client = new IORedis({ host: "127.0.0.1", port: server.port });
    client.on("error", () => {});
    clients.push(client);
    const keyward = createKeyward({
      store: combineStores(
        // No circuit breaker: a background save that met the kill would open it, and the first
        // requests after the restart would then be refused for its retry interval, a race with
        // the machine's speed that has nothing to do with credits.
        redisStore({ client, timeoutMs: callTimeoutMs, circuitBreaker: false }),
        postgresStore({ client: database.client, schema, timeoutMs: callTimeoutMs }),
      ),
      scopes: { "profile:read": "Read" },
      tiers,
      jwt: false,
      logger: false,
    });
    open.push(keyward);
    return keyward;
  };

  /** Redis killed and started again empty; every connection back before the next request. */
  const loseRedis = async () => {
    await server.kill();
    await server.restart();
    for (const client of clients) {
      if (client.status !== "end") await client.ping();
    }
  };

  /** The balance PostgreSQL holds for a key's credits, once it is `balance`. */
  const savedBalance = async (keyId: string) => {
    const { rows } = await database.client.query<{ state: string }>(
      `SELECT state::text AS state FROM "${schema}".keyward_allowances WHERE bucket = $1`,
      [`credits:${keyId}`],
    );
    const state = rows[0]?.state;
    return state === undefined ? undefined : Number(state.slice(1, -1).split(",")[1]);
  };

  const spend = async (keyward: Keyward, secret: string, times: number) => {
    for (let i = 0; i < times; i++) {
      const result = await keyward.verify(`Bearer ${secret}`, { route: "GET /p" });
      expect(result.ok, `request ${i + 1} of ${times}`).toBe(true);
    }
  };
  /** Spends until refused, from both instances in turn; how many were admitted. */
  const spendAll = async (instances: Keyward[], secret: string) => {
    let admitted = 0;
    for (let turn = 0; ; turn++) {
      const result = await instances[turn % instances.length]!.verify(`Bearer ${secret}`, {
        route: "GET /p",
      });
      if (!result.ok) {
        expect(result.error.code).toBe("credits_exhausted");
        return admitted;
      }
      admitted++;
    }
  };

  const newKey = async (keyward: Keyward, credits: Parameters<Keyward["keys"]["setLimits"]>[1]) => {
    const created = await keyward.keys.create({
      ownerId: "payer",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    await keyward.keys.setLimits(created.id, credits);
    return created;
  };
  const remaining = async (keyward: Keyward, keyId: string) =>
    (await keyward.keys.usage("payer", keyId)).credits?.remaining;

  beforeAll(async () => {
    server = await startRedisServer();
    database = await openDatabase();
    await migrate(database.client, { schema });
  }, testMs);
  afterAll(async () => {
    for (const keyward of open) await keyward.close();
    for (const client of clients) client.disconnect();
    await dropSchema(database.client, schema);
    await database?.close();
    await server?.stop();
  });

  it(
    "goes on from the saved balance after Redis loses everything, on every instance",
    async () => {
      const [first, second] = [instance(), instance()];
      const key = await newKey(first, { credits: { remaining: 100 } });
      await spend(first, key.key, 15);
      await spend(second, key.key, 15);
      await expect.poll(() => savedBalance(key.id), { timeout: waitMs }).toBe(70);

      await loseRedis();
      // The usage report reads the balance back from PostgreSQL, then both instances spend it.
      expect(await remaining(second, key.id)).toBe(70);
      expect(await spendAll([first, second], key.key)).toBe(70);
      expect(await remaining(first, key.id)).toBe(0);
    },
    testMs,
  );

  it(
    "saves what an instance spent when it closes",
    async () => {
      const spender = instance();
      const key = await newKey(spender, { credits: { remaining: 100 } });
      await spend(spender, key.key, 7);
      await spender.close();
      expect(await savedBalance(key.id)).toBe(93);

      await loseRedis();
      const next = instance();
      expect(await spendAll([next], key.key)).toBe(93);
    },
    testMs,
  );

  it(
    "gives back at most what was spent since the last save",
    async () => {
      const keyward = instance();
      const key = await newKey(keyward, { credits: { remaining: 100 } });
      await spend(keyward, key.key, 10);
      await expect.poll(() => savedBalance(key.id), { timeout: waitMs }).toBe(90);
      await spend(keyward, key.key, 5);
      await loseRedis();
      const left = await remaining(keyward, key.id);
      // 85 if the last five were saved before the loss, up to 90 if none of them were.
      expect(left).toBeGreaterThanOrEqual(85);
      expect(left).toBeLessThanOrEqual(90);
    },
    testMs,
  );

  it(
    "keeps a refilled period's balance, and lets a new grant replace the saved one",
    async () => {
      const keyward = instance();
      const key = await newKey(keyward, {
        credits: { remaining: 20, refill: { amount: 50, period: "month" } },
      });
      await spend(keyward, key.key, 5);
      await expect.poll(() => savedBalance(key.id), { timeout: waitMs }).toBe(15);
      await loseRedis();
      // Not the grant's 20, not the refill's 50: what was left this month.
      expect(await remaining(keyward, key.id)).toBe(15);

      await keyward.keys.setLimits(key.id, { credits: { remaining: 500 } });
      await spend(keyward, key.key, 1);
      expect(await remaining(keyward, key.id)).toBe(499);
      await expect.poll(() => savedBalance(key.id), { timeout: waitMs }).toBe(499);
    },
    testMs,
  );

  it(
    "starts a key first used after the loss from its grant",
    async () => {
      const keyward = instance();
      const key = await newKey(keyward, { credits: { remaining: 3 } });
      await loseRedis();
      expect(await spendAll([keyward], key.key)).toBe(3);
    },
    testMs,
  );
}

describeOnServer("durable credits: Redis + a PostgreSQL server", () => {
  durableCreditsSuite(async () => {
    // Each instance's store holds one connection to listen for invalidations.
    const pool = serverPool({ max: 20 });
    return { client: pool, close: () => pool.end() };
  });
});

describe("durable credits: Redis + PGlite", () => {
  durableCreditsSuite(async () => {
    // Resolved from @keyward/postgres's own test support, so nothing is added to this package.
    const pglite = sharedPGlite();
    return { client: await pglite.get(), close: () => pglite.close() };
  });
});
