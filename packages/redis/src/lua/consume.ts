/**
 * Rate-limit steps, and the usage of the requests among them, in one atomic script: the four
 * algorithms of `@keyward/core` (`src/rate-limit/*.ts`) transcribed operation for operation. The
 * store sends the requests that arrive within one turn of the event loop together (see
 * `step-batcher.ts`), grouped by principal; each principal's state is read once, its requests are
 * stepped in arrival order exactly as separate calls would be, and the state is written once.
 *
 * Exactness: Lua numbers are doubles, like JavaScript's, and every expression below performs the
 * same IEEE operations in the same order as its TypeScript original, so both compute the same bits.
 * Two traps are avoided: Lua's `%` is `a - floor(a/b)*b` (a float division, inexact for large
 * operands), so remainders use `math.fmod`, which is C's exact `fmod` like JavaScript's `%`; and
 * `tostring` keeps 14 digits, so numbers are written with `%.17g`, which round-trips any double.
 *
 * ARGV[1]  "redis": decide on the server's TIME; "caller": on each request's own time
 * ARGV[2]  f, the number of usage hash fields named in this call, which follow: "e:<METHOD> <route>"
 *          and "d:<YYYY-MM-DD>" (a call's requests mostly share a few, so each is sent once)
 * then     p, the number of policies named in this call, which follow: "<algorithm>:<limit>:<windowMs>"
 *          (algorithm: "fixed-window" | "sliding-window" | "token-bucket" | "gcra")
 * then, per principal, a header "<policy> <n> <where> <lastUsedAt> <i>:<c>…": the index of its
 *   policy among the p, its n requests, where its state lives, the latest use among the requests
 *   (epoch ms on the callers' clocks; "-" without usage), then for each usage field to count its
 *   index among the f fields and the count to add; followed with "caller" by the n requests' times.
 * Where the state lives, and the principal's key in KEYS:
 *   "key"   an API key: the fields `rp` (policy) and `rl` (state) of its usage hash, which also
 *           takes the usage;
 *   "use"   the same, with the latest use fields among its requests in the argument after the
 *           header, "<at> <fields>", kept in the hash's `use` if they are later (`later-use.ts`);
 *   "own"   anything else (a user): a string key "<policy>:<state>" that expires with the state.
 * The state is "<expiresAt>:<a>:<b>[:<c>]", the algorithm's tuple after the time it expires at.
 *
 * Returns 4 numbers per request, in order: allowed (1/0), remaining, reset, retryAfter; then the
 * time of the last step.
 */
import { luaScript } from "../client/lua-script.js";
import { luaLaterUse } from "./later-use.js";
import { luaHelpers, luaRateSteps } from "./rate-steps.js";

export const consumeScript = luaScript(
  "consume",
  `
${luaHelpers}${luaLaterUse}local onCallerClock = ARGV[1] ~= 'redis'
local now
if not onCallerClock then
  if redis.replicate_commands then redis.replicate_commands() end
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end

${luaRateSteps}-- Usage fields and policies by their index as written in the headers (strings: no conversions).
local fields, cursor = {}, 3
for i = 1, tonumber(ARGV[2]) do
  fields[tostring(i)] = ARGV[cursor]
  cursor = cursor + 1
end
local policies, policyCount = {}, tonumber(ARGV[cursor])
for i = 1, policyCount do
  local text = ARGV[cursor + i]
  local algorithm, limit, windowMs = string.match(text, '^([^:]+):([^:]+):([^:]+)$')
  -- Unreachable from the store, which checks the algorithm before sending anything.
  if not steps[algorithm] then return redis.error_reply('ERR unknown rate-limit algorithm ' .. text) end
  policies[tostring(i)] = {
    text = text, prefix = text .. ':', step = steps[algorithm],
    limit = tonumber(limit), windowMs = tonumber(windowMs),
  }
end
cursor = cursor + policyCount + 1

local replies, nextKey = {}, 1
while cursor <= #ARGV do
  -- The usual principal is an API key whose requests count in two fields (their endpoint's and
  -- their day's): its header is read in one match. Any other goes through the general header, its
  -- counts through a loop below.
  local policyIndex, n, where, lastUsedAt, first, firstCount, second, secondCount =
    string.match(ARGV[cursor], '^(%d+) (%d+) (key) (%S+) (%d+):(%d+) (%d+):(%d+)$')
  local counts
  if not policyIndex then
    policyIndex, n, where, lastUsedAt, counts = string.match(ARGV[cursor], '^(%d+) (%d+) (%a+) (%S+)(.*)$')
  end
  local policy, inUsage = policies[policyIndex], where == 'key' or where == 'use'
  local step, limit, windowMs = policy.step, policy.limit, policy.windowMs
  n = tonumber(n)
  local nows = cursor + 1
  local use
  if where == 'use' then
    use = ARGV[nows]
    nows = nows + 1
  end
  cursor = nows + (onCallerClock and n or 0)
  local key = KEYS[nextKey]
  nextKey = nextKey + 1

  -- The state belongs to one policy; state written under another one is ignored, as in memory.
  local stored, storedPolicy, last, text
  -- The usage fields to count in, read with the state so that one HSET writes both back: two
  -- commands per principal, not four (HINCRBY each field, then HSET the state).
  local countFields, countValues
  if inUsage then
    if first then
      countFields = { fields[first], fields[second] }
      countValues = { tonumber(firstCount), tonumber(secondCount) }
    else
      countFields, countValues = {}, {}
      for index, count in string.gmatch(counts, '(%d+):(%d+)') do
        countFields[#countFields + 1] = fields[index]
        countValues[#countValues + 1] = tonumber(count)
      end
    end
    local values = redis.call('HMGET', key, 'rp', 'rl', 'last', unpack(countFields))
    storedPolicy, stored, last = values[1], values[2], values[3]
    for j = 1, #countFields do countValues[j] = countValues[j] + (tonumber(values[3 + j]) or 0) end
    if storedPolicy == policy.text then text = stored end
  else
    stored = redis.call('GET', key)
    if stored and string.find(stored, policy.prefix, 1, true) == 1 then
      text = string.sub(stored, #policy.prefix + 1)
    end
  end
  local state, expiresAt
  if text then
    local e, a, b, c = string.match(text, '^([^:]+):([^:]+):([^:]+):?([^:]*)$')
    expiresAt, a, b = tonumber(e), tonumber(a), tonumber(b)
    -- Anything unreadable is no state: a fresh allowance, never an error on the request path.
    if expiresAt and a and b then state = { a, b, tonumber(c) } end
  end

  for i = 0, n - 1 do
    if onCallerClock then now = tonumber(ARGV[nows + i]) end
    -- As memory does: state past its expiry is gone, and a step may leave none behind.
    if state and expiresAt <= now then state = nil end
    local allowed, remaining, reset, retryAfter, nextExpiresAt, nextState = step(state, now, limit, windowMs)
    if nextExpiresAt > now then state, expiresAt = nextState, nextExpiresAt else state = nil end
    local r = #replies
    replies[r + 1] = allowed and 1 or 0
    replies[r + 2] = remaining
    replies[r + 3] = reset
    replies[r + 4] = retryAfter
  end

  if inUsage then
    -- An API key's usage hash is kept for good; its state fields are overwritten by every request
    -- and ignored once expired, so an idle key keeps two small stale fields.
    local counted = #countFields > 0
    local changes = {}
    for j = 1, #countFields do
      changes[#changes + 1] = countFields[j]
      changes[#changes + 1] = string.format('%d', countValues[j])
    end
    if state then
      changes[#changes + 1] = 'rl'
      changes[#changes + 1] = encode(expiresAt, state)
      if storedPolicy ~= policy.text then
        changes[#changes + 1] = 'rp'
        changes[#changes + 1] = policy.text
      end
    elseif stored then
      redis.call('HDEL', key, 'rl', 'rp')
    end
    if counted and (not last or tonumber(last) < tonumber(lastUsedAt)) then
      changes[#changes + 1] = 'last'
      changes[#changes + 1] = lastUsedAt
    end
    if use and laterUse(use, redis.call('HGET', key, 'use') or nil) then
      changes[#changes + 1] = 'use'
      changes[#changes + 1] = use
    end
    if #changes > 0 then redis.call('HSET', key, unpack(changes)) end
  elseif state then
    -- Dropped once it can no longer change a decision. On the callers' clocks, Redis's own clock
    -- only collects garbage (the stored expiresAt decides), so it keeps the state a minute longer.
    local ttl = expiresAt - now
    if onCallerClock then ttl = ttl + 60000 end
    redis.call('SET', key, policy.prefix .. encode(expiresAt, state), 'PX', math.ceil(ttl))
  elseif stored then
    redis.call('DEL', key)
  end
end
replies[#replies + 1] = now

return replies
`,
);
