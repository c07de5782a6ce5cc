import IORedis from "ioredis";
import { consumeScript } from "../packages/redis/src/lua/consume.js";
import { closedLoop } from "./redis-closed-loop.js";

const url = "redis://127.0.0.1:6390";
const admin = new IORedis(url);
const c = new IORedis(url);
const merged = `
local floor, max, fmod = math.floor, math.max, math.fmod
local function floorDivide(a, b) return (a - fmod(a, b)) / b end
local limit, windowMs = tonumber(ARGV[2]), tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
local v = redis.call('HMGET', KEYS[1], 'rp', 'rx', 'r1', 'r2', 'r3', 'last')
local aligned = floor(now / windowMs) * windowMs
local start, current, previous = aligned, 0, 0
if v[1] == ARGV[1] and tonumber(v[2]) > now then
  local s1 = tonumber(v[3])
  if s1 >= aligned then start, current, previous = s1, tonumber(v[4]), tonumber(v[5])
  elseif s1 == aligned - windowMs then previous = tonumber(v[4]) end
end
local elapsed = max(0, now - start)
local carried = previous * (windowMs - elapsed)
local capacity = limit * windowMs
local allowed = carried + (current + 1) * windowMs <= capacity
if allowed then current = current + 1 end
local reset = start + windowMs
if current > 0 then reset = start + 2 * windowMs end
local remaining = floorDivide(max(0, capacity - carried - current * windowMs), windowMs)
redis.call('HSET', KEYS[1], 'rp', ARGV[1], 'rx', reset, 'r1', start, 'r2', current, 'r3', previous, 'last', now)
redis.call('HINCRBY', KEYS[1], ARGV[6], 1)
return { allowed and 1 or 0, remaining, reset, 0, now }
`;
const rlf = `redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX') \
local consumed = redis.call('incrby', KEYS[1], ARGV[1]) \
local ttl = redis.call('pttl', KEYS[1]) \
if ttl == -1 then \
  redis.call('expire', KEYS[1], ARGV[2]) \
  ttl = 1000 * ARGV[2] \
end \
return {consumed, ttl} \
`;
const scripts: Record<string, [string, string[], string[]]> = {
  empty: ["return 1", ["x:1"], []],
  time: ["local t = redis.call('TIME') return 1", ["x:1"], []],
  hmget: [
    "local v = redis.call('HMGET', KEYS[1], 'rp', 'rx', 'r1', 'r2', 'r3', 'last') return 1",
    ["x:h"],
    [],
  ],
  hsetnum: [
    "redis.call('HSET', KEYS[1], 'rp', 'abc', 'rx', 1767225600000, 'r1', 1767225600000, 'r2', 5, 'r3', 7, 'last', 1767225600000) return 1",
    ["x:h"],
    [],
  ],
  hsetstr: [
    "redis.call('HSET', KEYS[1], 'rp', 'abc', 'rx', '1767225600000', 'r1', '1767225600000', 'r2', '5', 'r3', '7', 'last', '1767225600000') return 1",
    ["x:h"],
    [],
  ],
  hincrby: ["redis.call('HINCRBY', KEYS[1], 'e:2026-01-01 GET /x', 1) return 1", ["x:h"], []],
  lua: [
    "local floor, max, fmod = math.floor, math.max, math.fmod local now = 1767225600000 local s = 0 for i = 1, 20 do s = s + floor(now / 60000) * 60000 + fmod(now, 7) end return 1",
    ["x:1"],
    [],
  ],
  ret5: ["return {1, 2, 1767225600000, 4, 1767225600000}", ["x:1"], []],
  args7: [
    "return 1",
    ["x:1", "x:2"],
    ["sliding-window", "1000000000", "60000", "0", "redis", "e:GET /x", "d:2026-01-01"],
  ],
};
const results: Record<string, number[]> = {};
for (let round = 0; round < 3; round++) {
  for (const [name, [src, keys, args]] of Object.entries(scripts)) {
    const sha = (await c.script("LOAD", src)) as string;
    await admin.config("RESETSTAT");
    await closedLoop(() => c.evalsha(sha, keys.length, ...keys, ...args), {
      concurrency: 64,
      durationMs: 500,
    });
    const stats = (await admin.info("commandstats"))
      .split("\n")
      .find((l) => l.includes("evalsha"))!;
    (results[name] ??= []).push(Number(/usec_per_call=([\d.]+)/.exec(stats)![1]));
  }
}
for (const [name, values] of Object.entries(results))
  console.log(name.padEnd(10), values.join(" "), "min", Math.min(...values));
process.exit(0);
