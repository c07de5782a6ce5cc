/**
 * One Keyward instance in its own process for the inactivity test: keys and events on PostgreSQL
 * (KEYWARD_TEST_DATABASE_URL, KEYWARD_TEST_SCHEMA), rate limits and usage on Redis under
 * KEYWARD_TEST_REDIS_PREFIX, and a clock stopped at KEYWARD_TEST_NOW. It says "ready" over IPC,
 * waits for "scan", runs `keyward.permissions.scanInactive()` and answers with its result.
 */
import { createKeyward, manualClock } from "@keyward/core";
import IORedis from "ioredis";
import pg from "pg";
import { localRedis } from "../../../redis/test/support/redis-url.js";
import { inactivityConfig } from "./config.js";

const pool = new pg.Pool({ connectionString: process.env.KEYWARD_TEST_DATABASE_URL, max: 4 });
pool.on("error", () => {});
const redisClient = new IORedis(localRedis);
redisClient.on("error", () => {});
const keyward = createKeyward({
  ...(await inactivityConfig({
    pool,
    schema: process.env.KEYWARD_TEST_SCHEMA!,
    redis: redisClient,
    prefix: process.env.KEYWARD_TEST_REDIS_PREFIX!,
  })),
  clock: manualClock(Number(process.env.KEYWARD_TEST_NOW)),
});

process.on("message", async (message: string) => {
  if (message !== "scan") return;
  try {
    const result = await keyward.permissions.scanInactive();
    process.send!({ type: "result", result });
  } catch (error) {
    process.send!({ type: "error", message: String(error) });
  }
  await keyward.close();
  redisClient.disconnect();
  process.disconnect();
});
process.send!({ type: "ready" });
