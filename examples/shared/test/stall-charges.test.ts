/**
 * Only served requests are charged, through a Redis stall, across two processes on PostgreSQL +
 * Redis (keys in PostgreSQL, limits on a private redis-server, as the demo runs with both URLs).
 * Each process sends requests with one key that has credits and a quota while Redis is paused
 * three times (`CLIENT PAUSE … WRITE`), longer than the store's deadline: those requests are
 * answered 500, and Redis runs their calls once it resumes. At the end, credits and quota have spent
 * exactly one per request answered 200 by either process (the voids undo the rest).
 */
import { fileURLToPath } from "node:url";
import { combineStores, createKeyward, type Keyward } from "@keyward/core";
import { migrate, postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  serverUrl,
  uniqueSchema,
} from "../../../packages/postgres/test/support/databases.js";
import {
  type RedisServer,
  startRedisServer,
} from "../../../packages/redis/test/support/redis-servers.js";
import { forkWorker } from "./support/forked-worker.js";
import type { StallCounts } from "./support/stall-worker.js";

const workerFile = fileURLToPath(new URL("./support/stall-worker.ts", import.meta.url));
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const credits = 100_000;
const quota = 1_000_000;

const startWorker = (env: Record<string, string>) => forkWorker(workerFile, packageDir, env);

describeOnServer(
  "a Redis stall charges nothing for its 500s: two processes, PostgreSQL + Redis",
  () => {
    let server: RedisServer;
    let pool: pg.Pool;
    let redis: IORedis;
    let admin: Keyward;
    const schema = uniqueSchema("stall");
    let workers: ReturnType<typeof startWorker>[] = [];

    beforeAll(async () => {
      server = await startRedisServer();
      pool = serverPool({ max: 4 });
      await migrate(pool, { schema });
      redis = new IORedis({ host: "127.0.0.1", port: server.port });
      admin = createKeyward({
        store: combineStores(
          redisStore({ client: redis }),
          postgresStore({ client: pool, schema }),
        ),
        scopes: { "profile:read": "Read" },
        tiers: {
          free: {
            rateLimit: { limit: 1_000_000, window: "1h" },
            quota: { limit: quota, period: "month" },
          },
        },
        jwt: false,
        logger: false,
      });
      const env = {
        KEYWARD_TEST_DATABASE_URL: serverUrl,
        KEYWARD_TEST_SCHEMA: schema,
        KEYWARD_TEST_REDIS_PORT: String(server.port),
      };
      workers = [startWorker(env), startWorker(env)];
      expect(await Promise.all(workers.map((worker) => worker.next()))).toEqual(["ready", "ready"]);
    }, 60_000);
    afterAll(async () => {
      for (const worker of workers) worker.child.send({ type: "exit" });
      await admin?.close();
      redis?.disconnect();
      await dropSchema(pool, schema);
      await pool?.end();
      await server?.stop();
    });

    it("spends credits and quota exactly for the requests answered 200 by either process", async () => {
      const created = await admin.keys.create({
        ownerId: "stalled-owner",
        accountTier: "free",
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
      });
      await admin.keys.setLimits(created.id, { credits: { remaining: credits } });
      for (const worker of workers) worker.child.send({ type: "go", secret: created.key });
      expect(await Promise.all(workers.map((worker) => worker.next()))).toEqual(["going", "going"]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pauser = new IORedis({ host: "127.0.0.1", port: server.port });
      for (let stall = 0; stall < 3; stall++) {
        await pauser.call("CLIENT", "PAUSE", "400", "WRITE");
        await new Promise((resolve) => setTimeout(resolve, 700));
      }
      pauser.disconnect();
      for (const worker of workers) worker.child.send({ type: "stop" });
      const counts = (await Promise.all(workers.map((worker) => worker.next()))) as StallCounts[];
      const ok = counts.reduce((sum, count) => sum + count.ok, 0);
      const failed = counts.reduce((sum, count) => sum + count.failed, 0);
      expect(
        counts.every((count) => count.ok > 0),
        "both processes were served",
      ).toBe(true);
      expect(failed, "requests answered 500 during the stalls").toBeGreaterThan(0);
      expect(counts.reduce((sum, count) => sum + count.other, 0)).toBe(0);
      // The voids run in the background of each process: wait until every one has landed.
      const spent = async () => {
        const usage = await admin.keys.usage("stalled-owner", created.id);
        return {
          credits: credits - (usage.credits?.remaining ?? 0),
          quota: quota - (usage.quota?.remaining ?? 0),
        };
      };
      await expect.poll(spent, { timeout: 15_000 }).toEqual({ credits: ok, quota: ok });
    }, 90_000);
  },
);
