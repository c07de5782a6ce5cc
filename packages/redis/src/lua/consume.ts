/**
 * One rate-limit step, and optionally one request's usage, in one atomic script: the four
 * algorithms of `@keyward/core` (`src/rate-limit/*.ts`) transcribed operation for operation.
 *
 * Exactness: Lua numbers are doubles, like JavaScript's, and every expression below performs the
 * same IEEE operations in the same order as its TypeScript original, so both compute the same bits.
 * Two traps are avoided: Lua's `%` is `a - floor(a/b)*b` (a float division, inexact for large
 * operands), so remainders use `math.fmod`, which is C's exact `fmod` like JavaScript's `%`; and
 * `tostring` keeps 14 digits, so numbers are written with `%.17g`, which round-trips any double.
 *
 * KEYS[1]  the principal's rate-limit state: "<algorithm>:<limit>:<windowMs>:<expiresAt>:<state…>"
 * KEYS[2]  (optional) the usage hash of the key that made the request, under the same hash tag
 * ARGV[1]  algorithm: "fixed-window" | "sliding-window" | "token-bucket" | "gcra"
 * ARGV[2]  limit            ARGV[3]  windowMs
 * ARGV[4]  the caller's time (epoch ms)
 * ARGV[5]  "redis": decide on the server's TIME; "caller": on ARGV[4]
 * ARGV[6]  usage: the endpoint field ("e:<METHOD> <route>")    ARGV[7]  the day field ("d:YYYY-MM-DD")
 *
 * Returns { allowed (1/0), remaining, reset, retryAfter, now }.
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
local callerNow = tonumber(ARGV[4])
local now = callerNow
if ARGV[5] == 'redis' then
  if redis.replicate_commands then redis.replicate_commands() end
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end

-- The state belongs to one policy; state written under another one is ignored, as in memory.
local policy = algorithm .. ':' .. ARGV[2] .. ':' .. ARGV[3] .. ':'
local state
local stored = redis.call('GET', KEYS[1])
if stored and string.sub(stored, 1, #policy) == policy then
  local values = {}
  for value in string.gmatch(string.sub(stored, #policy + 1), '[^:]+') do
    values[#values + 1] = tonumber(value)
  end
  if values[1] > now then state = { values[2], values[3], values[4] } end
end

local allowed, remaining, reset, retryAfter, expiresAt, nextState

if algorithm == 'fixed-window' then
  local aligned = floor(now / windowMs) * windowMs
  local stateStart = state and state[1] or aligned
  local start = max(aligned, stateStart)
  local previousCount = 0
  if start == stateStart and state then previousCount = state[2] end
  allowed = previousCount < limit
  local count = previousCount
  if allowed then count = previousCount + 1 end
  reset = start + windowMs
  remaining = max(0, limit - count)
  retryAfter = allowed and 0 or reset - now
  expiresAt = reset
  nextState = num(start) .. ':' .. num(count)

elseif algorithm == 'sliding-window' then
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
  allowed = carried + (current + 1) * windowMs <= capacity
  if allowed then current = current + 1 end
  if current > 0 then reset = start + 2 * windowMs else reset = start + windowMs end
  remaining = floorDivide(max(0, capacity - carried - current * windowMs), windowMs)
  if allowed then
    retryAfter = 0
  else
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
  expiresAt = reset
  nextState = num(start) .. ':' .. num(current) .. ':' .. num(previous)

elseif algorithm == 'token-bucket' then
  local capacity = limit * windowMs
  local storedLevel, updatedAt = capacity, now
  if state then storedLevel, updatedAt = state[1], state[2] end
  local at = max(now, updatedAt)
  local elapsed = at - updatedAt
  local level = capacity
  if elapsed < windowMs then level = min(capacity, storedLevel + elapsed * limit) end
  allowed = level >= windowMs
  local left = level
  if allowed then left = level - windowMs end
  reset = at + ceilDivide(capacity - left, limit)
  remaining = floorDivide(left, windowMs)
  retryAfter = allowed and 0 or at + ceilDivide(windowMs - level, limit) - now
  expiresAt = reset
  nextState = num(left) .. ':' .. num(at)

elseif algorithm == 'gcra' then
  local storedTat, storedFraction = now, 0
  if state then storedTat, storedFraction = state[1], state[2] end
  local baseTat, baseFraction = storedTat, storedFraction
  if storedTat < now then baseTat, baseFraction = now, 0 end
  local sum = baseFraction + windowMs
  local nextTat = baseTat + floorDivide(sum, limit)
  local nextFraction = fmod(sum, limit)
  allowed = nextTat < now + windowMs or (nextTat == now + windowMs and nextFraction == 0)
  local tat, fraction = storedTat, storedFraction
  if allowed then tat, fraction = nextTat, nextFraction end
  local slack = (now + windowMs - tat) * limit - fraction
  if fraction > 0 then reset = tat + 1 else reset = tat end
  remaining = 0
  if slack > 0 then remaining = floorDivide(slack, windowMs) end
  if allowed then
    retryAfter = 0
  else
    local s = fraction + windowMs
    local at = tat + floorDivide(s, limit) - windowMs
    if fmod(s, limit) > 0 then at = at + 1 end
    retryAfter = at - now
  end
  expiresAt = reset
  nextState = num(tat) .. ':' .. num(fraction)

else
  return redis.error_reply('ERR unknown rate-limit algorithm ' .. algorithm)
end

-- Dropped once it can no longer change a decision. On the caller's clock, Redis's own clock only
-- collects garbage (the stored expiresAt decides), so it keeps the state a minute longer.
local ttl = expiresAt - now
if ARGV[5] ~= 'redis' then ttl = ttl + 60000 end
if expiresAt > now then
  redis.call('SET', KEYS[1], policy .. num(expiresAt) .. ':' .. nextState, 'PX', num(math.ceil(ttl)))
else
  redis.call('DEL', KEYS[1])
end

if KEYS[2] then
  redis.call('HINCRBY', KEYS[2], ARGV[6], 1)
  redis.call('HINCRBY', KEYS[2], ARGV[7], 1)
  local last = tonumber(redis.call('HGET', KEYS[2], 'last'))
  if not last or last < callerNow then redis.call('HSET', KEYS[2], 'last', ARGV[4]) end
end

return { allowed and 1 or 0, remaining, reset, retryAfter, now }
`,
);
