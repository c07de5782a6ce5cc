/**
 * The Lua shared by the scripts that step rate limits (`consume.ts`, `consume-layers.ts`): number
 * helpers, state encoding, and the four algorithms of `@keyward/core` transcribed operation for
 * operation (see `consume.ts` for why the results are bit-for-bit the same as TypeScript's).
 */

/** `floorDivide`, `ceilDivide`, `num` and `encode(expiresAt, state)`. */
export const luaHelpers = `local fmod, floor, max, min = math.fmod, math.floor, math.max, math.min
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

`;

/** `steps[algorithm](state, now, limit, windowMs)`; needs `luaHelpers`. */
export const luaRateSteps = `-- Each step: (state or nil, now, limit, windowMs)
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

`;
