/**
 * The Redis the integration tests run against (`KEYWARD_TEST_REDIS_URL`, default
 * redis://127.0.0.1:6379: support/redis-url.ts). In CI (`CI=true`) an unreachable server fails the
 * run loudly; elsewhere those tests are skipped with a notice.
 */
import { Socket } from "node:net";
import { localRedis, testRedisUrl } from "./redis-url.js";

export { localRedis, nodeRedisOptions, testRedisUrl } from "./redis-url.js";

/**
 * The deadline of store calls that a test expects to succeed: far above a busy host's slowest
 * answer, so that a test never depends on the machine's speed. Not the production default.
 */
export const testCallTimeoutMs = 30_000;

/** One PING, given 5 s: a loaded machine answers late, which is not a missing server. */
async function pingOnce(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(5_000, () => done(false));
    socket.once("error", () => done(false));
    socket.connect(localRedis.port, localRedis.host, () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

/** Up to three PINGs, so that one lost to a busy machine does not skip (or, in CI, fail) a suite. */
async function answersPing(): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) if (await pingOnce()) return true;
  return false;
}

/** Whether to run; throws in CI when Redis is missing, so a skipped suite never passes as green. */
export async function requireLocalRedis(suite: string): Promise<boolean> {
  if (await answersPing()) return true;
  const message = `Redis is not answering at ${testRedisUrl}`;
  if (process.env.CI === "true" || process.env.CI === "1") {
    throw new Error(`${message}; CI needs it for ${suite}`);
  }
  console.warn(
    `\n⚠ SKIPPED ${suite}: ${message}. Start it (redis-server --port 6379) or set KEYWARD_TEST_REDIS_URL.\n`,
  );
  return false;
}

export const redisAvailable = await requireLocalRedis("@keyward/redis integration tests");

/** A prefix no other test run shares, so runs never see each other's keys. */
export function testPrefix(label: string): string {
  return `kwtest:${label}:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}:`;
}
