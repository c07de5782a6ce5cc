/**
 * What Keyward's rate-limit scripts cost Redis itself, per call and per request: one script call of
 * 32 requests, each with a key of its own (one owner's 32 keys, as in `redis.bench.ts` at 64 keys),
 * is captured from a real `verify()` run and replayed with `EVALSHA`, and Redis's own timing
 * (`INFO commandstats`, `usec_per_call`) says what it cost. No network or Node time is in it.
 *
 * Subjects, alternated round after round:
 * - layered: `consume-layers.ts` with key + owner + monthly quota + usage (the call as Keyward
 *   sends it);
 * - floor: a script written for this call only, doing the least any script must do for it: per
 *   key one `HMGET` of its hash, the three steps (the same Lua step functions), one `HSET` back,
 *   and the owner's two states read and written once. It handles nothing else (no other layers,
 *   no refusals, no other usage fields), so it is a lower bound, not an alternative;
 * - key only: `consume.ts` with the key's own limit and usage (16 keys per call, as the store
 *   batches them), and its floor: per key one `HMGET`, the step, one `HSET`.
 *
 * Needs Redis (`REDIS_URL`, default redis://127.0.0.1:6379). It resets Redis's statistics
 * (`CONFIG RESETSTAT`) before each round: run it on a Redis used for nothing else.
 *
 * @example
 * cd bench && node --conditions=@keyward/source --import tsx redis-script-cost.ts
 */
import { createKeyward } from "@keyward/core";
import { memoryKeyStore } from "@keyward/core/toolkit";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import { luaHelpers, luaRateSteps } from "../packages/redis/src/lua/rate-steps.js";
import { median } from "./redis-closed-loop.js";
import { redisReachable } from "./support/redis-reachable.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const rounds = Number(process.env.KEYWARD_BENCH_ROUNDS ?? 7);
const callsPerRound = 2_000;

/**
 * The floor for the layered call: exactly this call's work, nothing general. Its arguments are
 * the layered script's (see `consume-layers.ts`); it skips to the groups and takes each group's
 * own key from its header.
 */
const floorScript = `${luaHelpers}
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
${luaRateSteps}
local slidingWindow = steps['sliding-window']
local function quotaStep(state, limit)
  local from = state and state[1] or 0
  local count = state and state[2] or 0
  return true, limit - count - 1, 0, 0, 0, { from, count + 1 }
end
local cursor = 3
cursor = cursor + tonumber(ARGV[cursor]) + 1
local fields = { ARGV[cursor + 1], ARGV[cursor + 2] }
cursor = cursor + tonumber(ARGV[cursor]) + 1
cursor = cursor + tonumber(ARGV[cursor]) + 1
local owner, quota = redis.call('GET', KEYS[2]), redis.call('GET', KEYS[3])
local ownerState, quotaState
local replies, r = {}, 0
while cursor <= #ARGV do
  local lastUsedAt, own = string.match(ARGV[cursor], '^%d+ (%S+) (%d+)')
  cursor = cursor + 1
  local key = KEYS[tonumber(own)]
  local stored = redis.call('HMGET', key, 'rp', 'rl', 'last', fields[1], fields[2])
  local state
  local e, a, b, c = string.match(stored[2] or '', '^([^:]+):([^:]+):([^:]+):?([^:]*)$')
  if e then state = { tonumber(a), tonumber(b), tonumber(c) } end
  local _, remaining, reset, _, expiresAt, nextState = slidingWindow(state, now, 1000000000, 60000)
  local _, ownerRemaining, ownerReset, _, _, nextOwner = slidingWindow(ownerState, now, 1000000000, 60000)
  ownerState = nextOwner
  local _, quotaRemaining, quotaReset, _, _, nextQuota = quotaStep(quotaState, 1000000000)
  quotaState = nextQuota
  replies[r + 1], replies[r + 2], replies[r + 3], replies[r + 4] = 1, remaining, reset, ownerRemaining
  replies[r + 5], replies[r + 6], replies[r + 7] = ownerReset, quotaRemaining, quotaReset
  r = r + 7
  redis.call('HSET', key,
    fields[1], string.format('%d', (tonumber(stored[4]) or 0) + 1),
    fields[2], string.format('%d', (tonumber(stored[5]) or 0) + 1),
    'rl', encode(expiresAt, nextState), 'last', lastUsedAt)
end
redis.call('SET', KEYS[2], 'sliding-window:1000000000:60000:' .. encode(0, ownerState), 'PX', 120000)
redis.call('SET', KEYS[3], encode(0, quotaState), 'PX', 120000)
return replies
`;

/**
 * The floor for the key-only call (`consume.ts`'s arguments): per key its hash read, its requests
 * stepped, counts, state and last use written back.
 */
const keyOnlyFloorScript = `${luaHelpers}
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
${luaRateSteps}
local slidingWindow = steps['sliding-window']
local endpoint, day = ARGV[3], ARGV[4]
local cursor = 3 + tonumber(ARGV[2])
cursor = cursor + tonumber(ARGV[cursor]) + 1
local replies, r, k = {}, 0, 0
while cursor <= #ARGV do
  local n, lastUsedAt, count = string.match(ARGV[cursor], '^%d+ (%d+) %a+ (%S+) %d+:(%d+)')
  n, count = tonumber(n), tonumber(count)
  cursor = cursor + 1
  k = k + 1
  local key = KEYS[k]
  local stored = redis.call('HMGET', key, 'rp', 'rl', 'last', endpoint, day)
  local state, expiresAt
  local e, a, b, c = string.match(stored[2] or '', '^([^:]+):([^:]+):([^:]+):?([^:]*)$')
  if e then expiresAt, state = tonumber(e), { tonumber(a), tonumber(b), tonumber(c) } end
  for i = 1, n do
    local allowed, remaining, reset, retryAfter, nextExpiresAt, nextState =
      slidingWindow(state, now, 1000000000, 60000)
    state, expiresAt = nextState, nextExpiresAt
    replies[r + 1], replies[r + 2], replies[r + 3], replies[r + 4] = allowed and 1 or 0, remaining, reset, retryAfter
    r = r + 4
  end
  redis.call('HSET', key,
    endpoint, string.format('%d', (tonumber(stored[4]) or 0) + count),
    day, string.format('%d', (tonumber(stored[5]) or 0) + count),
    'rl', encode(expiresAt, state), 'last', lastUsedAt)
end
replies[r + 1] = now
return replies
`;

interface Captured {
  sha: string;
  keys: number;
  args: string[];
}

/** Runs one round of `verify()` for 32 keys at once and keeps the biggest script call it sent. */
async function capture(layered: boolean): Promise<Captured> {
  const client = new IORedis(url);
  const calls: string[][] = [];
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((command: { name: string; args: unknown[] }) => {
    if (command.name === "evalsha") calls.push(command.args.map(String));
    return send(command as Parameters<typeof send>[0]);
  }) as typeof client.sendCommand;
  const redis = redisStore({
    client,
    prefix: `kwscript:${Date.now().toString(36)}:${layered ? "layered" : "key"}:`,
    timeoutMs: 1_000,
  });
  const open = { limit: 1_000_000_000, window: "1m" } as const;
  const keyward = createKeyward({
    store: { keys: memoryKeyStore(), usage: redis.usage, rateLimits: redis.rateLimits },
    scopes: { "profile:read": "Read profiles" },
    tiers: {
      pro: layered
        ? {
            rateLimit: open,
            ownerRateLimit: open,
            quota: { limit: 1_000_000_000, period: "month" },
          }
        : { rateLimit: open },
    },
    jwt: false,
  });
  const headers: string[] = [];
  for (let i = 0; i < 32; i++) {
    const { key } = await keyward.keys.create({
      ownerId: "script-cost",
      accountTier: "pro",
      name: `key ${i}`,
      scopes: ["profile:read"],
      tier: "pro",
    });
    headers.push(`Bearer ${key}`);
  }
  const options = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };
  const round = () => Promise.all(headers.map((header) => keyward.verify(header, options)));
  await round();
  calls.length = 0;
  await round();
  client.disconnect();
  const [largest] = calls.sort((a, b) => b.length - a.length);
  if (!largest) throw new Error("no script call was captured");
  const [sha, keys, ...rest] = largest;
  return { sha: sha!, keys: Number(keys), args: rest };
}

/** The arguments after `lists` counted lists (a count, then that many), the first at `first` in ARGV. */
function requestsIn(call: Captured, first: number, lists: number): number {
  let cursor = call.keys + first;
  for (let list = 0; list < lists; list++) cursor += Number(call.args[cursor]) + 1;
  return call.args.length - cursor;
}

if (await redisReachable(url)) await main();
else console.warn(`redis-script-cost.ts: skipped, no Redis at ${url}`);

async function main() {
  const layered = await capture(true);
  const keyOnly = await capture(false);
  const client = new IORedis(url);
  const floorSha = (await client.script("LOAD", floorScript)) as string;
  const keyOnlyFloorSha = (await client.script("LOAD", keyOnlyFloorScript)) as string;
  // A call's requests are its arguments after the counted lists that open ARGV: the layered
  // script's specs, fields and layer lists (after its clock and mode), the key-only script's fields
  // and policies (after its clock).
  const requests = new Map([
    [layered, requestsIn(layered, 2, 3)],
    [keyOnly, requestsIn(keyOnly, 1, 2)],
  ]);
  const subjects = [
    { name: "layered (consume-layers.ts)", sha: layered.sha, call: layered },
    { name: "floor for the layered call", sha: floorSha, call: layered },
    { name: "key only (consume.ts)", sha: keyOnly.sha, call: keyOnly },
    { name: "floor for the key-only call", sha: keyOnlyFloorSha, call: keyOnly },
  ];
  const results = new Map<string, number[]>(subjects.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...subjects].reverse() : subjects;
    for (const { name, sha, call } of order) {
      await client.config("RESETSTAT");
      const replies = [];
      for (let i = 0; i < callsPerRound; i++) {
        replies.push(client.evalsha(sha, call.keys, ...call.args));
      }
      await Promise.all(replies);
      const stats = (await client.info("commandstats")) as string;
      const line = stats.split("\n").find((entry) => entry.startsWith("cmdstat_evalsha:"));
      results.get(name)!.push(Number(/usec_per_call=([\d.]+)/.exec(line ?? "")?.[1]));
    }
  }
  client.disconnect();

  console.log(
    `\nRedis's own time per script call (median of ${rounds} rounds of ${callsPerRound} calls)\n`,
  );
  console.log("| script | requests per call | µs per call | µs per request | × floor |");
  console.log("|---|---:|---:|---:|---:|");
  const floors = new Map([
    [layered, median(results.get("floor for the layered call")!)],
    [keyOnly, median(results.get("floor for the key-only call")!)],
  ]);
  for (const { name, call } of subjects) {
    const perCall = median(results.get(name)!);
    const perRequest = perCall / requests.get(call)!;
    const ratio = `${(perCall / floors.get(call)!).toFixed(2)}×`;
    console.log(
      `| ${name} | ${requests.get(call)} | ${perCall.toFixed(0)} | ${perRequest.toFixed(1)} | ${ratio} |`,
    );
  }
}
