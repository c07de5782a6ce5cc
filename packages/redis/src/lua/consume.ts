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
 * then, per principal: algorithm ("fixed-window" | "sliding-window" | "token-bucket" | "gcra"),
 *   limit, windowMs, n (requests), where its state lives, u (usage fields), the latest use among
 *   them (epoch ms, callers' clocks, or ""), with "caller" the n requests' times, then u pairs of
 *   (usage hash field, count to add): "e:<METHOD> <route>" and "d:<YYYY-MM-DD>".
 * Where the state lives, and the principal's key in KEYS:
 *   "key"   an API key: the field `rl` of its usage hash, which also takes the usage;
 *   "own"   anything else (a user): a string key of its own, which expires with the state.
 * The state is "<algorithm>:<limit>:<windowMs>:<expiresAt>:<state…>".
 *
 * Returns 4 numbers per request, in order: allowed (1/0), remaining, reset, retryAfter; then the
 * time of the last step.
 */
import { luaScript } from "../client/lua-script.js";

export const consumeScript = luaScript(
  "consume",
  `
local fmod, floor, max, min = math.fmod, math.floor, math.max, math.min
local function floorDivide(a, b) return (a - fmod(a, b)) / b end
local function ceilDivide(a, b) return floorDivide(a + b - 1, b) end
local function num(x) return string.format('%.17g', x) end

-- One format call for the common case of integers (exact with %d up to 2^63), %.17g otherwise.
local function encode(expiresAt, state)
  local a, b, c = state[1], state[2], state[3]
  if expiresAt == floor(expiresAt) and a == floor(a) and b == floor(b) then
    if not c then return string.format('%d:%d:%d', expiresAt, a, b) end
    if c == floor(c) then return string.format('%d:%d:%d:%d', expiresAt, a, b, c) end
  end
  local text = num(expiresAt) .. ':' .. num(a) .. ':' .. num(b)
  if c then text = text .. ':' .. num(c) end
  return text
end

local onCallerClock = ARGV[1] ~= 'redis'
local now
if not onCallerClock then
  if redis.replicate_commands then redis.replicate_commands() end
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end

-- Each step: (state or nil, now, limit, windowMs)
--   -> allowed, remaining, reset, retryAfter, expiresAt, next state.
local steps = {}

steps['fixed-window'] = function(state, now, limit, windowMs)
  local aligned = floor(now / windowMs) * windowMs
  local stateStart = state and state[1] or aligned
  local start = max(aligned, stateStart)
  local previousCount = 0
  if state and start == stateStart then previousCount = state[2] end
  local allowed = previousCount < limit
  local count = previousCount
  if allowed then count = previousCount + 1 end
  local reset = start + windowMs
  return allowed, max(0, limit - count), reset, allowed and 0 or reset - now, reset, { start, count }
end

steps['sliding-window'] = function(state, now, limit, windowMs)
  local aligned = floor(now / windowMs) * windowMs
  local start, current, previous = aligned, 0, 0
  if state then
    if state[1] >= aligned then
      start, current, previous = state[1], state[2], state[3]
    elseif state[1] == aligned - windowMs then
      previous = state[2]
    end
  end
  local elapsed = max(0, now - start)
  local carried = previous * (windowMs - elapsed)
  local capacity = limit * windowMs
  local allowed = carried + (current + 1) * windowMs <= capacity
  if allowed then current = current + 1 end
  local reset = start + windowMs
  if current > 0 then reset = start + 2 * windowMs end
  local remaining = floorDivide(max(0, capacity - carried - current * windowMs), windowMs)
  local retryAfter = 0
  if not allowed then
    -- admissibleAt: the first millisecond at which one more request would be admitted.
    local at
    if current < limit and previous > 0 then
      local e = windowMs - floorDivide((limit - current - 1) * windowMs, previous)
      if e < windowMs then at = start + e end
    end
    if not at then
      if current == 0 then
        at = start + windowMs
      else
        at = start + windowMs + max(0, windowMs - floorDivide((limit - 1) * windowMs, current))
      end
    end
    retryAfter = at - now
  end
  return allowed, remaining, reset, retryAfter, reset, { start, current, previous }
end

steps['token-bucket'] = function(state, now, limit, windowMs)
  local capacity = limit * windowMs
  local storedLevel, updatedAt = capacity, now
  if state then storedLevel, updatedAt = state[1], state[2] end
  local at = max(now, updatedAt)
  local elapsed = at - updatedAt
  local level = capacity
  if elapsed < windowMs then level = min(capacity, storedLevel + elapsed * limit) end
  local allowed = level >= windowMs
  local left = level
  if allowed then left = level - windowMs end
  local reset = at + ceilDivide(capacity - left, limit)
  local retryAfter = allowed and 0 or at + ceilDivide(windowMs - level, limit) - now
  return allowed, floorDivide(left, windowMs), reset, retryAfter, reset, { left, at }
end

steps['gcra'] = function(state, now, limit, windowMs)
  local storedTat, storedFraction = now, 0
  if state then storedTat, storedFraction = state[1], state[2] end
  local baseTat, baseFraction = storedTat, storedFraction
  if storedTat < now then baseTat, baseFraction = now, 0 end
  local sum = baseFraction + windowMs
  local nextTat = baseTat + floorDivide(sum, limit)
  local nextFraction = fmod(sum, limit)
  local allowed = nextTat < now + windowMs or (nextTat == now + windowMs and nextFraction == 0)
  local tat, fraction = storedTat, storedFraction
  if allowed then tat, fraction = nextTat, nextFraction end
  local slack = (now + windowMs - tat) * limit - fraction
  local reset = tat
  if fraction > 0 then reset = tat + 1 end
  local remaining = 0
  if slack > 0 then remaining = floorDivide(slack, windowMs) end
  local retryAfter = 0
  if not allowed then
    local s = fraction + windowMs
    local at = tat + floorDivide(s, limit) - windowMs
    if fmod(s, limit) > 0 then at = at + 1 end
    retryAfter = at - now
  end
  return allowed, remaining, reset, retryAfter, reset, { tat, fraction }
end

local replies = {}
local cursor, nextKey = 2, 1
while cursor <= #ARGV do
  local algorithm, limitArg, windowArg = ARGV[cursor], ARGV[cursor + 1], ARGV[cursor + 2]
  local limit, windowMs, n = tonumber(limitArg), tonumber(windowArg), tonumber(ARGV[cursor + 3])
  local inUsage, fields = ARGV[cursor + 4] == 'key', tonumber(ARGV[cursor + 5])
  local lastUsedAt = ARGV[cursor + 6]
  -- Unreachable from the store, which checks the algorithm before sending anything.
  local step = steps[algorithm]
  if not step then return redis.error_reply('ERR unknown rate-limit algorithm ' .. algorithm) end
  local nows = cursor + 7
  cursor = nows + (onCallerClock and n or 0)
  local key = KEYS[nextKey]
  nextKey = nextKey + 1

  local stored, last
  if inUsage then
    local values = redis.call('HMGET', key, 'rl', 'last')
    stored, last = values[1], values[2]
  else
    stored = redis.call('GET', key)
  end

  -- The state belongs to one policy; state written under another one is ignored, as in memory.
  local policy = algorithm .. ':' .. limitArg .. ':' .. windowArg .. ':'
  local state, expiresAt
  if stored and string.sub(stored, 1, #policy) == policy then
    local e, a, b, c = string.match(stored, '^([^:]+):([^:]+):?([^:]*):?([^:]*)$', #policy + 1)
    expiresAt = tonumber(e)
    state = { tonumber(a), tonumber(b), tonumber(c) }
  end

  for i = 0, n - 1 do
    if onCallerClock then now = tonumber(ARGV[nows + i]) end
    -- As memory does: state past its expiry is gone, and a step may leave none behind.
    if state and expiresAt <= now then state = nil end
    local allowed, remaining, reset, retryAfter, nextExpiresAt, nextState = step(state, now, limit, windowMs)
    if nextExpiresAt > now then state, expiresAt = nextState, nextExpiresAt else state = nil end
    replies[#replies + 1] = allowed and 1 or 0
    replies[#replies + 1] = remaining
    replies[#replies + 1] = reset
    replies[#replies + 1] = retryAfter
  end

  if inUsage then
    -- An API key's usage hash is kept for good; its \`rl\` field is overwritten by every request
    -- and ignored once expired, so one idle key costs one small stale field.
    for i = cursor, cursor + 2 * fields - 1, 2 do
      redis.call('HINCRBY', key, ARGV[i], ARGV[i + 1])
    end
    cursor = cursor + 2 * fields
    local newLast = fields > 0 and (not last or tonumber(last) < tonumber(lastUsedAt))
    if state and newLast then
      redis.call('HSET', key, 'rl', policy .. encode(expiresAt, state), 'last', lastUsedAt)
    elseif state then
      redis.call('HSET', key, 'rl', policy .. encode(expiresAt, state))
    else
      if stored then redis.call('HDEL', key, 'rl') end
      if newLast then redis.call('HSET', key, 'last', lastUsedAt) end
    end
  elseif state then
    -- Dropped once it can no longer change a decision. On the callers' clocks, Redis's own clock
    -- only collects garbage (the stored expiresAt decides), so it keeps the state a minute longer.
    local ttl = expiresAt - now
    if onCallerClock then ttl = ttl + 60000 end
    redis.call('SET', key, policy .. encode(expiresAt, state), 'PX', math.ceil(ttl))
  elseif stored then
    redis.call('DEL', key)
  end
end
replies[#replies + 1] = now

return replies
`,
);
