/**
 * Whether a Redis answers at `url`: the Redis benches skip themselves, with a warning, without one.
 */
import IORedis from "ioredis";

export async function redisReachable(url: string): Promise<boolean> {
  const probe = new IORedis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on("error", () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
