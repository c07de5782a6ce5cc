import IORedis from "ioredis";
import { createClient } from "redis";
import type { RedisClient } from "../../src/index.js";

export type Driver = "ioredis" | "node-redis";

/** A client of `driver` on 127.0.0.1:`port`, its errors swallowed (a fault test causes them), and how to close it. */
export async function driverClient(
  driver: Driver,
  port: number,
): Promise<{ client: RedisClient; close(): Promise<void> }> {
  if (driver === "ioredis") {
    const client = new IORedis({ host: "127.0.0.1", port });
    client.on("error", () => {});
    return { client, close: async () => client.disconnect() };
  }
  const client = createClient({ socket: { host: "127.0.0.1", port } });
  client.on("error", () => {});
  await client.connect();
  return { client, close: async () => client.destroy() };
}
