/**
 * The demo on real storage: with `DATABASE_URL` and/or `REDIS_URL` set, the example applies
 * migrations at start, serves the contract, and its keys outlive the process (a restarted server
 * still knows them, which an in-memory store could not). Needs the tests' PostgreSQL and Redis
 * (KEYWARD_TEST_DATABASE_URL, KEYWARD_TEST_REDIS_URL): skipped with a notice outside CI when they
 * are down, failed in CI.
 */
import { Socket } from "node:net";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  defaultTestDatabaseUrl,
  serverDatabaseUrl,
} from "../../../packages/postgres/test/support/databases.js";
import { localRedis, testRedisUrl } from "../../../packages/redis/test/support/redis-url.js";
import { developmentJwtSecret } from "../src/config.js";
import { mintToken } from "../src/token.js";
import { type RunningExample, startExample } from "./run-example.js";

/**
 * A database of its own per run: the demo migrates the default schema of whatever `DATABASE_URL`
 * names, and a shared database may hold another version's tables (an older checkout's run).
 */
const demoDatabase = `keyward_demo_${Date.now().toString(36)}_${crypto.randomUUID().slice(0, 8)}`;
const adminUrl = serverDatabaseUrl();
const databaseUrl = serverDatabaseUrl(demoDatabase);
const redisUrl = testRedisUrl;
const postgresServer = new URL(process.env.KEYWARD_TEST_DATABASE_URL || defaultTestDatabaseUrl);

const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = new Socket();
    socket.setTimeout(1_000);
    socket.once("connect", () => resolve(true)).once("error", () => resolve(false));
    socket.once("timeout", () => resolve(false));
    socket.connect(port, host);
  }).finally(() => undefined);

const [postgresUp, redisUp] = await Promise.all([
  reachable(postgresServer.hostname, Number(postgresServer.port || 5432)),
  reachable(localRedis.host, localRedis.port),
]);
if (process.env.CI && !(postgresUp && redisUp)) {
  throw new Error(
    `CI needs PostgreSQL (${postgresServer.host}: ${postgresUp ? "up" : "down"}) and Redis (${testRedisUrl}: ${redisUp ? "up" : "down"})`,
  );
}
if (!(postgresUp && redisUp)) {
  console.warn(
    "NOTICE: examples on PostgreSQL/Redis skipped: start both servers, or point KEYWARD_TEST_DATABASE_URL and KEYWARD_TEST_REDIS_URL at them",
  );
}

const configurations = [
  {
    name: "DATABASE_URL",
    env: { DATABASE_URL: databaseUrl },
    shows: "keys and usage in PostgreSQL",
  },
  {
    name: "REDIS_URL",
    env: { REDIS_URL: redisUrl },
    shows: "keys, usage and rate limits in Redis",
  },
  {
    name: "DATABASE_URL and REDIS_URL",
    env: { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl },
    shows: "keys in PostgreSQL, usage and rate limits in Redis",
  },
];

describe.skipIf(!(postgresUp && redisUp))("examples/fetch on real storage", () => {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  beforeAll(() => admin(`CREATE DATABASE "${demoDatabase}"`));
  afterAll(() => admin(`DROP DATABASE IF EXISTS "${demoDatabase}" WITH (FORCE)`));

  let running: RunningExample[] = [];
  afterEach(async () => {
    await Promise.all(running.map((server) => server.stop()));
    running = [];
  });
  const start = async (env: Record<string, string>) => {
    const server = await startExample("fetch", env);
    running.push(server);
    return server;
  };

  for (const { name, env, shows } of configurations) {
    it(`with ${name}: serves the contract and keeps keys across a restart`, async () => {
      const first = await start(env);
      expect(first.stdout()).toContain(shows);
      const userId = `store-user-${crypto.randomUUID()}`;
      const jwt = await mintToken({ sub: userId, tier: "pro", secret: developmentJwtSecret });
      const call = async (
        origin: string,
        method: string,
        path: string,
        token: string,
        body?: unknown,
      ) => {
        const response = await fetch(new URL(path, origin), {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return {
          status: response.status,
          body: (await response.json()) as Record<string, unknown>,
        };
      };

      const created = await call(first.origin, "POST", "/api/v1/api-keys", jwt, {
        name: "stored",
        scopes: ["profile:read"],
        tier: "free",
      });
      expect(created.status).toBe(201);
      const { id, key } = created.body as { id: string; key: string };
      expect((await call(first.origin, "GET", "/api/v1/profiles/ada", key)).status).toBe(200);
      await first.stop();

      const second = await start(env);
      const listed = await call(second.origin, "GET", "/api/v1/api-keys", jwt);
      expect((listed.body.data as { id: string }[]).map((record) => record.id)).toEqual([id]);
      expect((await call(second.origin, "GET", "/api/v1/profiles/ada", key)).status).toBe(200);

      const rotated = await call(second.origin, "POST", `/api/v1/api-keys/${id}/rotate`, jwt);
      expect(rotated.status).toBe(200);
      const fresh = rotated.body.key as string;
      expect((await call(second.origin, "GET", "/api/v1/profiles/ada", key)).status).toBe(401);
      expect((await call(second.origin, "GET", "/api/v1/profiles/ada", fresh)).status).toBe(200);

      const usage = await call(second.origin, "GET", `/api/v1/api-keys/${id}/usage`, jwt);
      expect(usage.body.totalRequests).toBe(3);
      expect(usage.body.endpoints).toEqual([
        { method: "GET", route: "/api/v1/profiles/:slug", count: 3 },
      ]);

      expect((await call(second.origin, "DELETE", `/api/v1/api-keys/${id}`, jwt)).status).toBe(200);
      expect((await call(second.origin, "GET", "/api/v1/profiles/ada", fresh)).status).toBe(401);
    }, 120_000);
  }
});
