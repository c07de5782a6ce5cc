/**
 * One of the processes of `stall-charges.test.ts`: a Keyward instance of its own, keys on
 * PostgreSQL and limits on Redis (`combineStores`, as the demo runs with both URLs). "go" sends
 * requests with the given key on four lanes until "stop", then answers how many were answered 200,
 * 500 or anything else.
 *
 * Run with `fork(file, { execArgv: ["--conditions=@keyward/source", "--import", "tsx"] })`, with
 * KEYWARD_TEST_DATABASE_URL, KEYWARD_TEST_SCHEMA and KEYWARD_TEST_REDIS_PORT set.
 */
import { combineStores, createKeyward } from "@keyward/core";
import { postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import pg from "pg";

export interface StallCounts {
  ok: number;
  failed: number;
  other: number;
}

const pool = new pg.Pool({ connectionString: process.env.KEYWARD_TEST_DATABASE_URL, max: 4 });
const client = new IORedis({
  host: "127.0.0.1",
  port: Number(process.env.KEYWARD_TEST_REDIS_PORT),
});
client.on("error", () => {});
const keyward = createKeyward({
  // The breaker off: every request during a stall goes to Redis and meets its deadline.
  store: combineStores(
    redisStore({ client, timeoutMs: 100, circuitBreaker: false }),
    postgresStore({ client: pool, schema: process.env.KEYWARD_TEST_SCHEMA! }),
  ),
  scopes: { "profile:read": "Read" },
  tiers: {
    free: {
      rateLimit: { limit: 1_000_000, window: "1h" },
      quota: { limit: 1_000_000, period: "month" },
    },
  },
  jwt: false,
  logger: false,
});

let running = false;
const counts: StallCounts = { ok: 0, failed: 0, other: 0 };

const lane = async (secret: string) => {
  while (running) {
    const result = await keyward.verify(`Bearer ${secret}`, { route: "GET /p" });
    if (result.ok) counts.ok++;
    else if (result.error.status === 500) counts.failed++;
    else counts.other++;
  }
};

let lanes: Promise<void>[] = [];
process.on(
  "message",
  async (message: { type: "go"; secret: string } | { type: "stop" } | { type: "exit" }) => {
    if (message.type === "go") {
      running = true;
      lanes = Array.from({ length: 4 }, () => lane(message.secret));
      process.send!("going");
    } else if (message.type === "stop") {
      running = false;
      await Promise.all(lanes);
      process.send!(counts);
    } else {
      await keyward.close();
      client.disconnect();
      await pool.end();
      process.disconnect();
    }
  },
);
process.send!("ready");
