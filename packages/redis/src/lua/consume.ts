/**
 * Rate-limit steps for one principal, and the usage of the requests among them, in one atomic
 * script: the four algorithms of `@keyward/core` (`src/rate-limit/*.ts`) transcribed operation for
 * operation. The store sends the requests for one principal that arrive within one turn of the
 * event loop together (often just one); they are stepped in order, exactly as that many calls one
 * after another would be, so the state is read and written once however many there are.
 *
 * Exactness: Lua numbers are doubles, like JavaScript's, and every expression below performs the
 * same IEEE operations in the same order as its TypeScript original, so both compute the same bits.
 * Two traps are avoided: Lua's `%` is `a - floor(a/b)*b` (a float division, inexact for large
 * operands), so remainders use `math.fmod`, which is C's exact `fmod` like JavaScript's `%`; and
 * `tostring` keeps 14 digits, so numbers are written with `%.17g`, which round-trips any double.
 *
 * KEYS[1]  the principal's rate-limit state: "<algorithm>:<limit>:<windowMs>:<expiresAt>:<state…>"
 * KEYS[2]  (with usage) the usage hash of the API key, under the same hash tag
 * ARGV[1]  algorithm: "fixed-window" | "sliding-window" | "token-bucket" | "gcra"
 * ARGV[2]  limit                ARGV[3]  windowMs
 * ARGV[4]  "redis": decide on the server's TIME; "caller": on each request's own time
 * ARGV[5]  n, the number of requests
 * ARGV[6]  the latest use among them (epoch ms, the callers' clocks), or "" without usage
 * then     with "caller": the n requests' times
 * then     usage: pairs of (hash field, count) to add: "e:<METHOD> <route>" and "d:<YYYY-MM-DD>"
 *
 * Returns n × { allowed (1/0), remaining, reset, retryAfter }, then the time of the last step.
 */
import { luaScript } from "../client/lua-script.js";

export const consumeScript = luaScript(
  "consume",
  `
local fmod, floor, max, min = math.fmod, math.floor, math.max, math.min
local function floorDivide(a, b) return (a - fmod(a, b)) / b end
local function ceilDivide(a, b) return floorDivide(a + b - 1, b) end
local function num(x) return string.format('%.17g', x) end

local algorithm, limit, windowMs = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local onCallerClock, n = ARGV[4] ~= 'redis', tonumber(ARGV[5])
local now
if not onCallerClock then
  if redis.replicate_commands then redis.replicate_commands() end
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end

-- Each step: (state or nil, now) -> allowed, remaining, reset, retryAfter, expiresAt, next state.
local step

if algorithm == 'fixed-window' then
  step = function(state, now)
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

elseif algorithm == 'sliding-window' then
  step = function(state, now)
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

elseif algorithm == 'token-bucket' then
  step = function(state, now)
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

elseif algorithm == 'gcra' then
  step = function(state, now)
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

else
  return redis.error_reply('ERR unknown rate-limit algorithm ' .. algorithm)
end

-- The state belongs to one policy; state written under another one is ignored, as in memory.
local policy = algorithm .. ':' .. ARGV[2] .. ':' .. ARGV[3] .. ':'
local state, expiresAt
local stored = redis.call('GET', KEYS[1])
if stored and string.sub(stored, 1, #policy) == policy then
  local values = {}
  for value in string.gmatch(string.sub(stored, #policy + 1), '[^:]+') do
    values[#values + 1] = tonumber(value)
  end
  expiresAt = table.remove(values, 1)
  state = values
end

local replies = {}
for i = 1, n do
  if onCallerClock then now = tonumber(ARGV[6 + i]) end
  -- As memory does: state past its expiry is gone, and a step may leave none behind.
  if state and expiresAt <= now then state = nil end
  local allowed, remaining, reset, retryAfter, nextExpiresAt, nextState = step(state, now)
  if nextExpiresAt > now then state, expiresAt = nextState, nextExpiresAt else state = nil end
  replies[#replies + 1] = allowed and 1 or 0
  replies[#replies + 1] = remaining
  replies[#replies + 1] = reset
  replies[#replies + 1] = retryAfter
end
replies[#replies + 1] = now

-- Dropped once it can no longer change a decision. On the callers' clocks, Redis's own clock only
-- collects garbage (the stored expiresAt decides), so it keeps the state a minute longer.
if state then
  local ttl = expiresAt - now
  if onCallerClock then ttl = ttl + 60000 end
  local value = policy .. num(expiresAt)
  for _, x in ipairs(state) do value = value .. ':' .. num(x) end
  redis.call('SET', KEYS[1], value, 'PX', math.ceil(ttl))
elseif stored then
  redis.call('DEL', KEYS[1])
end

if KEYS[2] then
  for i = 7 + (onCallerClock and n or 0), #ARGV, 2 do
    redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
  end
  local last = tonumber(redis.call('HGET', KEYS[2], 'last'))
  if not last or last < tonumber(ARGV[6]) then redis.call('HSET', KEYS[2], 'last', ARGV[6]) end
end

return replies
`,
);
