import { createKeyward, memoryKeyStore } from "@keyward/core";
import IORedis from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { redisStore } from "../packages/redis/src/index.js";
import { closedLoop } from "./redis-closed-loop.js";

const url = process.argv[2] ?? "redis://127.0.0.1:6390";
const c1 = new IORedis(url);
const c2 = new IORedis(url);
const redis = redisStore({ client: c1, timeoutMs: 1000 });
const keyward = createKeyward({
  store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
  scopes: { "p:r": "x" },
  tiers: { pro: { rateLimit: { limit: 1e9, window: "1m" } } },
});
const keys: string[] = [];
for (let i = 0; i < 64; i++)
  keys.push(
    `Bearer ${(await keyward.keys.create({ ownerId: "b", accountTier: "pro", name: "b", scopes: ["p:r"], tier: "pro" })).key}`,
  );
const limiter = new RateLimiterRedis({ storeClient: c2, points: 1e9, duration: 60 });
let i = 0,
  j = 0;
const verifyMany = () => keyward.verify(keys[i++ % 64], { scopes: ["p:r"], route: "GET /x" });
const consumeMany = () => limiter.consume(`k${j++ % 64}`);
const admin = new IORedis(url);
const stat = async () => {
  const s =
    (await admin.info("commandstats")).split("\n").find((l) => l.includes("evalsha")) ??
    "calls=0,usec=0";
  const cpu =
    Number(/used_cpu_user:([\d.]+)/.exec(await admin.info("cpu"))![1]) +
    Number(/used_cpu_sys:([\d.]+)/.exec(await admin.info("cpu"))![1]);
  return { calls: Number(/calls=(\d+)/.exec(s)![1]), usec: Number(/usec=(\d+)/.exec(s)![1]), cpu };
};
for (let round = 0; round < 3; round++) {
  await admin.config("RESETSTAT");
  let s0 = await stat();
  const a = await closedLoop(verifyMany, { concurrency: 64, durationMs: 2000 });
  let s1 = await stat();
  console.log(
    "keyward",
    Math.round(a.opsPerSecond),
    "calls",
    s1.calls,
    "req/call",
    (a.calls / s1.calls).toFixed(1),
    "usec/req in script",
    (s1.usec / a.calls).toFixed(2),
    "redis cpu/req µs",
    (((s1.cpu - s0.cpu) * 1e6) / a.calls).toFixed(2),
  );
  await admin.config("RESETSTAT");
  s0 = await stat();
  const b = await closedLoop(consumeMany, { concurrency: 64, durationMs: 2000 });
  s1 = await stat();
  console.log(
    "rlf    ",
    Math.round(b.opsPerSecond),
    "calls",
    s1.calls,
    "usec/req in script",
    (s1.usec / b.calls).toFixed(2),
    "redis cpu/req µs",
    (((s1.cpu - s0.cpu) * 1e6) / b.calls).toFixed(2),
  );
}
process.exit(0);
