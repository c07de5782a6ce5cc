import { createKeyward, memoryKeyStore } from "@keyward/core";
import IORedis from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { redisStore } from "../packages/redis/src/index.js";
import { closedLoop } from "./redis-closed-loop.js";

const url = "redis://127.0.0.1:6390";
const admin = new IORedis(url);
const c1 = new IORedis(url);
const c2 = new IORedis(url);
const redis = redisStore({ client: c1, timeoutMs: 1000 });
const keyward = createKeyward({
  store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
  scopes: { "p:r": "x" },
  tiers: { pro: { rateLimit: { limit: 1e9, window: "1m" } } },
});
const { key } = await keyward.keys.create({
  ownerId: "b",
  accountTier: "pro",
  name: "b",
  scopes: ["p:r"],
  tier: "pro",
});
const verify = () => keyward.verify(`Bearer ${key}`, { scopes: ["p:r"], route: "GET /x" });
const limiter = new RateLimiterRedis({ storeClient: c2, points: 1e9, duration: 60 });
const consume = () => limiter.consume("k");
const policy = { algorithm: "sliding-window", limit: 1e9, windowMs: 60000 } as const;
const hit = { keyId: "abc", method: "GET", route: "/x", day: "2026-01-01" };
const raw = () => redis.rateLimits.consume("key:abc", policy, Date.now(), hit);
const rawNoUsage = () => redis.rateLimits.consume("key:abc", policy, Date.now());
for (const [name, fn] of [
  ["verify", verify],
  ["consume+usage", raw],
  ["consume", rawNoUsage],
  ["rlf", consume],
] as const) {
  await closedLoop(fn, { concurrency: 64, durationMs: 1000 });
  await admin.config("RESETSTAT");
  const r = await closedLoop(fn, { concurrency: 64, durationMs: 3000 });
  const stats = (await admin.info("commandstats")).split("\n").filter((l) => l.includes("eval"));
  const cpu = (await admin.info("cpu")).split("\n").filter((l) => l.startsWith("used_cpu_user:"));
  console.log(name, Math.round(r.opsPerSecond), r.p50Ms.toFixed(2), stats.join(" "));
}
process.exit(0);
