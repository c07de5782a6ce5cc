import IORedis from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { redisStore } from "../packages/redis/src/index.js";
import { closedLoop } from "./redis-closed-loop.js";
const url = "redis://127.0.0.1:6390";
const c1 = new IORedis(url); const c2 = new IORedis(url);
const redis = redisStore({ client: c1, timeoutMs: 1000 });
const limiter = new RateLimiterRedis({ storeClient: c2, points: 1e9, duration: 60 });
const policy = { algorithm: "sliding-window", limit: 1e9, windowMs: 60000 } as const;
const hit = { keyId: "abc", method: "GET", route: "/x", day: "2026-01-01" };
const which = process.argv[2];
const fn = which === "rlf" ? () => limiter.consume("k") : () => redis.rateLimits.consume("key:abc", policy, Date.now(), hit);
for (let i = 0; i < 3; i++) {
  const r = await closedLoop(fn, { concurrency: 64, durationMs: 2000 });
  console.log(which, Math.round(r.opsPerSecond));
}
process.exit(0);
