/**
 * Every layer of one request (per key, shared per owner, quota, credits: `LimitLayer` in
 * `@keyward/core`) in one atomic script, all-or-nothing, with the request's usage. The steps are
 * `stepLayer` of `@keyward/core` (`src/limits/step-layer.ts`) transcribed; the rate layers reuse the
 * algorithms of `consume.ts`, and the UTC calendar uses Howard Hinnant's civil-from-days.
 *
 * Cluster: KEYS 1..n are the layers' states, all named under the owner's hash tag
 * (`KeyNames.layer`), so one slot holds them. KEYS[n+1], the key's usage hash, is given only when
 * it may share the call (a single server): on a cluster it lives in the key's own slot and the
 * store counts usage in a call of its own.
 *
 * Several requests may share a call (those of one turn of the event loop, `layer-batcher.ts`); each
 * is stepped after the one before, all-or-nothing on its own, exactly as separate calls would be.
 *
 * ARGV[1] "redis" | "caller" (whose clock), ARGV[2] "consume" | "read", ARGV[3] the number of
 * requests; then per request a header "<now> <n> <f>" (the caller's time, its n layers, and f usage
 * hash fields to add one to, 0 without usage), its n layer specs, then its f fields:
 *   "r <algorithm>:<limit>:<windowMs>"                        a rate layer
 *   "q <limit> <day|month>"                                   a quota
 *   "c <cost> <remaining> <grantedAt> [<amount> <period>]"    credits (with a refill)
 * KEYS: per request, its n layers' states, then its usage hash when f > 0.
 *
 * States: rate "<policy>:<expiresAt>:<a>:<b>[:<c>]" (as `consume.ts` keeps a user's), quota
 * "<expiresAt>:<periodStart>:<count>", both with a TTL; credits "<grantedAt>:<balance>:<refilledAt>",
 * kept for good.
 *
 * Returns, per request: per layer allowed (1/0), remaining, reset, retryAfter; then allowed
 * overall (1/0).
 */
import { luaScript } from "../client/lua-script.js";
import { luaHelpers, luaRateSteps } from "./rate-steps.js";

export const consumeLayersScript = luaScript(
  "consume-layers",
  `
${luaHelpers}
local now, serverNow
local onCallerClock = ARGV[1] ~= 'redis'
if not onCallerClock then
  if redis.replicate_commands then redis.replicate_commands() end
  local time = redis.call('TIME')
  serverNow = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end
local consume = ARGV[2] == 'consume'

${luaRateSteps}
local dayMs = 86400000
local monthDays = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }

-- The UTC period holding t: its first and its next period's first millisecond.
local function period(t, kind)
  local day = floor(t / dayMs)
  if kind == 'day' then return day * dayMs, (day + 1) * dayMs end
  -- civil_from_days: the day of the month and the month of this day.
  local z = day + 719468
  local era = floor(z / 146097)
  local doe = z - era * 146097
  local yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100))
  local mp = floor((5 * doy + 2) / 153)
  local d = doy - floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  local length = monthDays[m]
  if m == 2 and ((fmod(y, 4) == 0 and fmod(y, 100) ~= 0) or fmod(y, 400) == 0) then length = 29 end
  local first = day - d + 1
  return first * dayMs, (first + length) * dayMs
end

local function quotaStep(state, limit, kind)
  local start, finish = period(now, kind)
  local current = state ~= nil and state[1] >= start
  local from, untilAt, count = start, finish, 0
  if current then
    from, count = state[1], state[2]
    if from > start then local _, later = period(from, kind); untilAt = later end
  end
  local allowed
  if consume then allowed = count + 1 <= limit else allowed = count < limit end
  local nextCount = count
  if consume and allowed then nextCount = count + 1 end
  local retryAfter = 0
  if not allowed then retryAfter = untilAt - now end
  return allowed, max(0, limit - nextCount), untilAt, retryAfter, untilAt, { from, nextCount }
end

local function creditsStep(state, cost, remaining, grantedAt, amount, kind)
  local start = 0
  if amount then start = period(now, kind) end
  local balance, refilledAt = remaining, start
  if state ~= nil and state[1] == grantedAt then
    balance, refilledAt = state[2], state[3]
    if amount and start > refilledAt then balance, refilledAt = amount, start end
  end
  local spend = consume and cost or 0
  local allowed = balance >= spend and (consume or balance > 0)
  local left = balance
  if consume and allowed then left = balance - spend end
  local reset, retryAfter = 0, 0
  if amount then
    local _, later = period(max(now, refilledAt), kind)
    reset = later
    if not allowed then retryAfter = reset - now end
  end
  return allowed, left, reset, retryAfter, { grantedAt, left, refilledAt }
end

local function parse(text)
  local e, a, b, c = string.match(text, '^([^:]+):([^:]+):([^:]+):?([^:]*)$')
  e, a, b = tonumber(e), tonumber(a), tonumber(b)
  if e and a and b then return e, { a, b, tonumber(c) } end
  return nil, nil
end

-- Each key is read and parsed at most once per call, and written at most once, at the end: the
-- requests of a call step through these in-script states, as separate calls would through Redis.
-- An entry: { raw = stored text } until parsed; then { policy, e = expiresAt, s = state }.
local entries, dirtyOrder = {}, {}
local function entryOf(key)
  local entry = entries[key]
  if entry == nil then
    local stored = redis.call('GET', key)
    entry = { raw = stored or nil }
    entries[key] = entry
  end
  return entry
end
local function store(key, policy, expiresAt, state, ttl)
  local entry = entries[key]
  if not entry.dirty then dirtyOrder[#dirtyOrder + 1] = key end
  entry.raw, entry.parsed, entry.dirty = nil, true, true
  entry.policy, entry.e, entry.s, entry.ttl = policy, expiresAt, state, ttl
end
-- The state of a rate or quota entry under policy (a rate layer's, or the empty string for a quota), or nil.
local function stateOf(entry, policy)
  if not entry.parsed then
    entry.parsed = true
    local raw = entry.raw
    if raw then
      local prefix = policy == '' and '' or policy .. ':'
      if policy == '' or string.find(raw, prefix, 1, true) == 1 then
        entry.e, entry.s = parse(string.sub(raw, #prefix + 1))
        entry.policy = policy
      end
    end
  end
  if entry.s and entry.policy == policy and entry.e > now then return entry.s, entry.e end
  return nil
end
local usageCounts, usageLast, usageOrder = {}, {}, {}

local replies, cursor, keyIndex = {}, 4, 1
for _ = 1, tonumber(ARGV[3]) do
  local callerNow, n, f = string.match(ARGV[cursor], '^(%d+) (%d+) (%d+)$')
  n, f = tonumber(n), tonumber(f)
  now = onCallerClock and tonumber(callerNow) or serverNow
  local specs, keys = cursor, keyIndex - 1
  local writes, allowedAll = {}, true
  for i = 1, n do
    local spec = ARGV[specs + i]
    local key = KEYS[keys + i]
    local kind = string.sub(spec, 1, 1)
    local entry = entryOf(key)
    local allowed, remaining, reset, retryAfter, write
    if kind == 'r' then
      local policy = string.sub(spec, 3)
      local algorithm, limit, windowMs = string.match(policy, '^([^:]+):([^:]+):([^:]+)$')
      local step = steps[algorithm]
      if not step then return redis.error_reply('ERR unknown rate-limit algorithm ' .. policy) end
      local state = stateOf(entry, policy)
      local nextExpiresAt, nextState
      allowed, remaining, reset, retryAfter, nextExpiresAt, nextState =
        step(state, now, tonumber(limit), tonumber(windowMs))
      -- A read is the step of one request, not kept: what it would have left, plus that request.
      if not consume and allowed then remaining = remaining + 1 end
      if nextExpiresAt > now then
        write = { policy, nextExpiresAt, nextState, nextExpiresAt }
      else
        write = { false }
      end
    elseif kind == 'q' then
      local limit, periodKind = string.match(spec, '^q (%d+) (%a+)$')
      local state = stateOf(entry, '')
      local untilAt, nextState
      allowed, remaining, reset, retryAfter, untilAt, nextState = quotaStep(state, tonumber(limit), periodKind)
      write = { '', untilAt, nextState, untilAt }
    else
      local cost, remainingGrant, grantedAt, amount, periodKind =
        string.match(spec, '^c (%d+) (%d+) (%d+) ?(%d*) ?(%a*)$')
      amount = tonumber(amount)
      if not entry.parsed then
        entry.parsed = true
        if entry.raw then
          local a, rest = parse(entry.raw)
          if a then entry.policy, entry.e, entry.s = 'c', 0, { a, rest[1], rest[2] } end
        end
      end
      local state = entry.policy == 'c' and entry.s or nil
      local nextState
      allowed, remaining, reset, retryAfter, nextState =
        creditsStep(state, tonumber(cost), tonumber(remainingGrant), tonumber(grantedAt), amount, periodKind)
      write = { 'c', 0, nextState, nil }
    end
    if not allowed then allowedAll = false end
    writes[i] = write
    local r = #replies
    replies[r + 1] = allowed and 1 or 0
    replies[r + 2] = remaining
    replies[r + 3] = reset
    replies[r + 4] = retryAfter
  end

  -- All-or-nothing: only an admitted request changes any layer.
  if consume and allowedAll then
    local ttlSlack = onCallerClock and 60000 or 0
    for i = 1, n do
      local write = writes[i]
      local key = KEYS[keys + i]
      if write[1] == false then
        store(key, false, nil, nil, nil)
      else
        local ttl = nil
        if write[4] then ttl = math.ceil(write[4] - now + ttlSlack) end
        store(key, write[1], write[2], write[3], ttl)
      end
    end
  end

  -- Usage counts every request that presented a valid key, admitted or not, as consume.ts does.
  cursor = specs + n + 1
  keyIndex = keys + n + 1
  if f > 0 then
    local usageKey = KEYS[keyIndex]
    keyIndex = keyIndex + 1
    if consume then
      local counts = usageCounts[usageKey]
      if not counts then
        counts = { fields = {}, order = {} }
        usageCounts[usageKey] = counts
        usageOrder[#usageOrder + 1] = usageKey
      end
      for field = cursor, cursor + f - 1 do
        local name = ARGV[field]
        if not counts.fields[name] then counts.order[#counts.order + 1] = name end
        counts.fields[name] = (counts.fields[name] or 0) + 1
      end
      if not usageLast[usageKey] or tonumber(usageLast[usageKey]) < tonumber(callerNow) then
        usageLast[usageKey] = callerNow
      end
    end
    cursor = cursor + f
  end
  replies[#replies + 1] = allowedAll and 1 or 0
end

for _, key in ipairs(dirtyOrder) do
  local entry = entries[key]
  local policy, state = entry.policy, entry.s
  if policy == false then
    redis.call('DEL', key)
  elseif policy == 'c' then
    redis.call('SET', key, string.format('%d:%d:%d', state[1], state[2], state[3]))
  else
    local text = encode(entry.e, state)
    if policy ~= '' then text = policy .. ':' .. text end
    redis.call('SET', key, text, 'PX', entry.ttl)
  end
end
for _, usageKey in ipairs(usageOrder) do
  local counts = usageCounts[usageKey]
  for _, name in ipairs(counts.order) do redis.call('HINCRBY', usageKey, name, counts.fields[name]) end
  local last = redis.call('HGET', usageKey, 'last')
  if not last or tonumber(last) < tonumber(usageLast[usageKey]) then
    redis.call('HSET', usageKey, 'last', usageLast[usageKey])
  end
end
return replies
`,
);
