import IORedis from "ioredis";
import { it } from "vitest";
import { redisConnection } from "../src/client/redis-connection.js";
import { redisInvalidationChannel } from "../src/index.js";
import { startRedisServer } from "./support/redis-servers.js";

it("debug", async () => {
  const server = await startRedisServer();
  const client = new IORedis({ host: "127.0.0.1", port: server.port });
  client.on("error", () => {});
  const t0 = performance.now();
  const log = (...a: unknown[]) => console.log((performance.now() - t0).toFixed(0), ...a);
  const channel = redisInvalidationChannel({ client, onError: (e) => log("onError", (e as Error).message) });
  await channel.subscribe((e) => log("event", e.keyId), (s) => log("state", s));
  log("subscribed");
  await server.kill();
  log("killed");
  await server.restart();
  log("restarted");
  await new Promise((r) => setTimeout(r, 1500));
  const n = await client.publish("keyward:invalidations", JSON.stringify({ keyId: "x", secretHash: "h" }));
  log("published to", n);
  const admin = new IORedis({ host: "127.0.0.1", port: server.port });
  log("clients", await admin.client("LIST"));
  await new Promise((r) => setTimeout(r, 500));
  admin.disconnect(); client.disconnect(); await channel.close(); await server.stop();
}, 30000);
