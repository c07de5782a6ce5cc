/**
 * The Redis the integration tests run against: `KEYWARD_TEST_REDIS_URL`, default
 * `redis://127.0.0.1:6379` (database 0; name another with a path, `redis://127.0.0.1:6379/9`).
 * Tests never flush it: each works under a key prefix of its own (`testPrefix`), so runs at once,
 * and a user's own keys in the same database, are never touched. No side effects here, so worker
 * processes import it too (they inherit the variable).
 */
export const defaultTestRedisUrl = "redis://127.0.0.1:6379";

export const testRedisUrl = process.env.KEYWARD_TEST_REDIS_URL || defaultTestRedisUrl;

const parsed = new URL(testRedisUrl);

/** ioredis's options for the tests' Redis: `new IORedis(localRedis)`. */
export const localRedis = {
  host: parsed.hostname.replace(/^\[|\]$/g, ""),
  port: Number(parsed.port || 6379),
  db: Number(parsed.pathname.slice(1) || 0),
  ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
  ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
};

/** node-redis's options for the same server and database: `createClient(nodeRedisOptions)`. */
export const nodeRedisOptions = {
  socket: { host: localRedis.host, port: localRedis.port },
  database: localRedis.db,
  ...(localRedis.password ? { password: localRedis.password } : {}),
  ...(localRedis.username ? { username: localRedis.username } : {}),
};
