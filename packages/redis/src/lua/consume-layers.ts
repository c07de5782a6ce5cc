/**
 * Every layer of one request (per key, shared per owner, quota, credits: `LimitLayer` in
 * `@keyward/core`) in one atomic script, all-or-nothing, with the request's usage. The steps are
 * `stepLayer` of `@keyward/core` (`src/limits/step-layer.ts`) transcribed; the rate layers reuse the
 * algorithms of `consume.ts`, and the UTC calendar uses Howard Hinnant's civil-from-days (an ISO
 * week starts on the Monday on or before the day: day 0, 1970-01-01, was a Thursday).
 *
 * Several requests may share a call (those of one turn of the event loop, `layer-batcher.ts`),
 * grouped by the layers they pass through (in practice: by key; usage is counted per group). Each
 * is stepped after the one before, all-or-nothing on its own, exactly as separate calls would be
 * that arrived in that order: a group's requests in their order, the groups one after another
 * (requests that were all in flight at once have no order of their own to keep). What the requests
 * of a call have in common is sent and worked out once: each Redis key is named once in KEYS, read
 * at most once and written at most once; each spec and each list of layers is sent and parsed
 * once (one owner's keys share a list: their owner's layers, with "*" for the key's own), so a
 * group resolves only its own key's state, and its usage is counted once. A request is then only
 * its steps.
 *
 * Where a state lives (`redis-layers.ts` decides):
 *   a string key, "<policy>:<state>" for a rate layer and "<state>" for a quota, with a TTL, and
 *     "<grantedAt>:<balance>:<refilledAt>" for credits, kept for good (but credits that start from
 *     nothing, a grant of 0 at 0 with no refill, and are back to nothing are dropped);
 *   or, for a key's own rate layer on a single server, the fields `rp` (policy) and `rl` (state) of
 *     the key's usage hash, exactly as `consume.ts` keeps them: one hash per key holds its own limit
 *     and its usage, and the key's count carries over between the layered and the single-layer path.
 *
 * Cluster: every key of a call is in one slot (one owner's, `KeyNames.layer`); the usage hash is in
 * the key's slot, so there usage is counted by a call of its own and the key's layer is a string.
 *
 * ARGV[1] "redis" | "caller" (whose clock), ARGV[2] "consume" | "read", ARGV[3] how long the
 * "paid" marker is kept (ms);
 * then s, the number of layer specs, and the s specs:
 *   "r <algorithm>:<limit>:<windowMs>"                        a rate layer
 *   "q <limit> <day|week|month>"                              a quota
 *   "c <cost> <remaining> <grantedAt> [<amount> <period>]"    credits (with a refill); a negative
 *     cost gives back what an admitted request spent (a settled hold, an adjustment)
 *   "d <cost> …"                                               durable credits, as "c"; a state
 *     not held at all is not started from the grant: the request is refused unchanged, with
 *     retryAfter -1 on that layer, for the caller to seed it from the durable balance and retry
 * then f, the number of usage hash fields ("e:<METHOD> <route>", "d:<YYYY-MM-DD>"), and the f fields;
 * then t, the number of layer lists, and the t lists, each "<layer>…" with each <layer> as
 *   "<key>.<spec>" (a string state) or "<key>#<spec>" (a state in a hash), <key> an index into KEYS
 *   or "*" for the group's own key, <spec> an index into the specs above;
 * then k, the number of counter increment sets, and the k sets (`CounterIncrement` in
 *   `@keyward/core`), each "<key> <field> <by> <expireAt|->" joined by commas, <key> an index into KEYS;
 * then per group one argument "<n> <lastUsedAt> <own> <list> <usage>[ <m>][ +<set>]": its n requests, the
 *   latest of their callers' times with usage (epoch ms, for the usage hash's `last`; "-" without),
 *   the index in KEYS of its own key ("0" when its list has no "*"), its list of layers, and <usage>
 *   the hashes and fields they count in, "<key>:<field>:<field>x<count>" joined by commas (each of
 *   <count> requests adds one to both fields) or "-"; with <m>, the m arguments after it are client
 *   uses' fields (`UsageIncrement.useFields`), each "<key> <at> <fields>": the latest among the
 *   group's requests counted in that hash, kept in its `use` if later (`later-use.ts`);
 *   followed with "caller" by the n requests' times. With "+<set>", each admitted request adds the
 *   increments of that set (HINCRBY, and PEXPIREAT when given), listed in "paid" as undoable charges.
 *
 * With "consume", the last two KEYS are the call's charge markers (`charge-markers.ts`): "paid",
 * where the call writes what it charged to quotas and credits (so that a caller that gave up on it,
 * and answered its requests 500, can undo exactly that: `lua/void-charges.ts`), and "void", which,
 * once set, makes the call change nothing (it arrived after its caller had given up).
 *
 * Returns, per request in the order of the groups: 1 if it was admitted, then for each layer its
 * remaining and reset (every layer allowed it, with no wait); or 0, then for each layer allowed
 * (1/0), remaining, reset and retryAfter. A voided call returns an error reply.
 */
import { luaScript } from "../client/lua-script.js";
import { luaLaterUse } from "./later-use.js";
import { luaHelpers, luaRateSteps } from "./rate-steps.js";

export const consumeLayersScript = luaScript(
  "consume-layers",
  `
${luaHelpers}${luaLaterUse}
local now, serverNow
local onCallerClock = ARGV[1] ~= 'redis'
if not onCallerClock then
  if redis.replicate_commands then redis.replicate_commands() end
  local time = redis.call('TIME')
  serverNow = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end
local consume = ARGV[2] == 'consume'
local paidKey, voidKey
if consume then
  paidKey, voidKey = KEYS[#KEYS - 1], KEYS[#KEYS]
  if redis.call('EXISTS', voidKey) == 1 then return redis.error_reply('KEYWARD_VOIDED call given up by its caller') end
end
-- What admitted requests charged to quotas and credits, one line each (see void-charges.ts).
local charges = {}

${luaRateSteps}
local dayMs = 86400000
local monthDays = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }

-- The UTC period holding t: its first and its next period's first millisecond. The requests of a
-- call mostly fall in one month (on Redis's clock all at one time), so the last month is kept.
local lastDay, lastFirst, lastNext
local function period(t, kind)
  local day = floor(t / dayMs)
  if kind == 'day' then return day * dayMs, (day + 1) * dayMs end
  if kind == 'week' then
    local monday = day - fmod(fmod(day + 3, 7) + 7, 7)
    return monday * dayMs, (monday + 7) * dayMs
  end
  if day == lastDay then return lastFirst, lastNext end
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
  lastDay, lastFirst, lastNext = day, first * dayMs, (first + length) * dayMs
  return lastFirst, lastNext
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

-- The specs, parsed once for the whole call.
local specs, cursor = {}, 5
for i = 1, tonumber(ARGV[4]) do
  local text = ARGV[cursor]
  cursor = cursor + 1
  local kind = string.sub(text, 1, 1)
  if kind == 'r' then
    local policy = string.sub(text, 3)
    local algorithm, limit, windowMs = string.match(policy, '^([^:]+):([^:]+):([^:]+)$')
    local step = steps[algorithm]
    if not step then return redis.error_reply('ERR unknown rate-limit algorithm ' .. policy) end
    specs[i] = { kind = kind, policy = policy, step = step, limit = tonumber(limit), windowMs = tonumber(windowMs) }
  elseif kind == 'q' then
    local limit, periodKind = string.match(text, '^q (%d+) (%a+)$')
    specs[i] = { kind = kind, policy = '', limit = tonumber(limit), period = periodKind }
  else
    local cost, remaining, grantedAt, amount, periodKind =
      string.match(text, '^[cd] (%-?%d+) (%d+) (%d+) ?(%d*) ?(%a*)$')
    specs[i] = {
      kind = 'c', policy = 'c', cost = tonumber(cost), remaining = tonumber(remaining),
      grantedAt = tonumber(grantedAt), amount = tonumber(amount), period = periodKind,
      durable = kind == 'd',
    }
    -- Credits that start from nothing (a grant of 0 at 0, no refill): no state means nothing.
    local spec = specs[i]
    spec.fromNothing = not spec.durable and not spec.amount and spec.remaining == 0 and spec.grantedAt == 0
  end
end
local fields = {}
for i = 1, tonumber(ARGV[cursor]) do fields[i] = ARGV[cursor + i] end
cursor = cursor + tonumber(ARGV[cursor]) + 1

local function parse(text)
  local e, a, b, c = string.match(text, '^([^:]+):([^:]+):([^:]+):?([^:]*)$')
  e, a, b = tonumber(e), tonumber(a), tonumber(b)
  if e and a and b then return e, { a, b, tonumber(c) } end
  return nil, nil
end

-- One entry per Redis key of the call, read on first use and written once at the end: the
-- requests of a call step through these in-script states, as separate calls would through Redis.
-- An entry holds what was stored (raw; in a hash also storedPolicy and last), then once parsed the
-- state in use: policy ('' for a quota, 'c' for credits), e = expiresAt, s = the state's tuple.
-- A usage hash is read with the fields its first group counts in (\`wanted\`, field indexes, no
-- field twice), so that one HSET writes counts and state back: two commands per hash, not four.
-- From then on \`count\` holds each field's value (read, plus what the call added) and \`order\`
-- the fields, in the order they are written back.
local entries, touched = {}, {}
local function entryOf(index, inHash, wanted)
  local entry = entries[index]
  if entry == nil then
    if inHash then
      local order = wanted or {}
      local n = #order
      local names = {}
      for j = 1, n do names[j] = fields[order[j]] end
      local values = redis.call('HMGET', KEYS[index], 'rp', 'rl', 'last', unpack(names))
      local count = {}
      for j = 1, n do count[order[j]] = tonumber(values[3 + j]) or 0 end
      entry = {
        inHash = true, storedPolicy = values[1] or nil, raw = values[2] or nil, last = values[3] or nil,
        count = count, order = order, counted = false,
      }
    else
      entry = { raw = redis.call('GET', KEYS[index]) or nil }
    end
    entries[index] = entry
    touched[#touched + 1] = index
  end
  return entry
end

-- Reads what the entry holds as the state of policy (state kept under another policy is none).
local function parseEntry(entry, policy)
  entry.parsed = true
  local raw = entry.raw
  if not raw then return end
  if policy == 'c' then
    local grantedAt, rest = parse(raw)
    if grantedAt then entry.policy, entry.e, entry.s = 'c', 0, { grantedAt, rest[1], rest[2] } end
    return
  end
  local text
  if entry.inHash then
    if entry.storedPolicy == policy then text = raw end
  elseif policy == '' then
    text = raw
  elseif string.find(raw, policy .. ':', 1, true) == 1 then
    text = string.sub(raw, #policy + 2)
  end
  if text then
    entry.e, entry.s = parse(text)
    entry.policy = policy
  end
end

-- The lists of layers of the call, each parsed once: a layer is its spec, where its state lives, and
-- its key (an index into KEYS), or none for the group's own key ("*"), which differs from group to
-- group (a key's own limit) while the rest are shared (its owner's). A layer also holds its entry
-- (a shared one's found once per call, the own key's per group) and e and s, the state its last
-- step would leave, so a group's steps allocate nothing to plan them.
local lists = {}
for i = 1, tonumber(ARGV[cursor]) do
  local layers = {}
  for keyIndex, where, specIndex in string.gmatch(ARGV[cursor + i], '([%d*]+)([.#])(%d+)') do
    local spec = specs[tonumber(specIndex)]
    layers[#layers + 1] = {
      keyIndex = tonumber(keyIndex), inHash = where == '#', spec = spec, policy = spec.policy,
      kind = spec.kind, entry = false, e = 0, s = false,
    }
  end
  lists[i] = layers
end
cursor = cursor + tonumber(ARGV[cursor]) + 1
-- The counter increment sets: each { keyIndex, field, by, expireAt }; summed per key and field in
-- \`bumps\` as admitted requests add them, and written once at the end.
local incrementSets, bumps, bumpOrder = {}, {}, {}
for i = 1, tonumber(ARGV[cursor]) do
  local set = {}
  for keyIndex, field, by, expireAt in string.gmatch(ARGV[cursor + i], '(%d+) ([^ ,]+) (%-?%d+) ([%d-]+)') do
    set[#set + 1] = { tonumber(keyIndex), field, tonumber(by), tonumber(expireAt) }
  end
  incrementSets[i] = set
end
cursor = cursor + tonumber(ARGV[cursor]) + 1

-- Appends a field index to a list of fields unless it holds it already (a few fields).
local function addOnce(list, field)
  for j = 1, #list do if list[j] == field then return end end
  list[#list + 1] = field
end

-- Reads a usage field the hash was not read with, to count in it from its stored value.
local function countIn(entry, keyIndex, field)
  entry.count[field] = tonumber(redis.call('HGET', KEYS[keyIndex], fields[field])) or 0
  addOnce(entry.order, field)
end

-- One use of a group's usage: \`requests\` requests of it add one to two fields of a key's hash.
local function addUse(uses, wanted, keyIndex, endpoint, day, requests)
  keyIndex, endpoint, day = tonumber(keyIndex), tonumber(endpoint), tonumber(day)
  local u = #uses
  uses[u + 1], uses[u + 2], uses[u + 3], uses[u + 4] = keyIndex, endpoint, day, tonumber(requests)
  local fieldsOf = wanted[keyIndex]
  if not fieldsOf then fieldsOf = {}; wanted[keyIndex] = fieldsOf end
  addOnce(fieldsOf, endpoint)
  addOnce(fieldsOf, day)
end
local none = {}

local replies, r = {}, 0
-- A refused request's layers: allowed and retryAfter (an admitted one sends neither).
local decided, waits = {}, {}

while cursor <= #ARGV do
  local header, setIndex = string.match(ARGV[cursor], '^(.-) %+(%d+)$')
  header = header or ARGV[cursor]
  local increments = setIndex and incrementSets[tonumber(setIndex)]
  local count, lastUsedAt, own, list, usage =
    string.match(header, '^(%d+) (%S+) (%d+) (%d+) (%S+)$')
  local useCount = 0
  if not count then
    count, lastUsedAt, own, list, usage, useCount =
      string.match(header, '^(%d+) (%S+) (%d+) (%d+) (%S+) (%d+)$')
    useCount = tonumber(useCount)
  end
  count, own = tonumber(count), tonumber(own)
  local useArgs = cursor
  local times = cursor + useCount
  cursor = times + 1 + (onCallerClock and count or 0)
  local plan = lists[tonumber(list)]
  -- The usage of the group's requests: per hash and pair of fields, how many requests add one
  -- (flat, four numbers per use), and the fields each hash is read with.
  local uses, wanted = none, none
  if usage ~= '-' then
    uses, wanted = {}, {}
    -- The usual group, one key's requests on one endpoint and one day, without a gmatch loop.
    local keyIndex, endpoint, day, requests = string.match(usage, '^(%d+):(%d+):(%d+)x(%d+)$')
    if keyIndex then
      addUse(uses, wanted, keyIndex, endpoint, day, requests)
    else
      for keyIndex, endpoint, day, requests in string.gmatch(usage, '(%d+):(%d+):(%d+)x(%d+)') do
        addUse(uses, wanted, keyIndex, endpoint, day, requests)
      end
    end
  end
  local n = #plan
  for i = 1, n do
    local layer = plan[i]
    -- A shared layer's entry stays for the next group; the own key's is looked up per group.
    if not layer.keyIndex or not layer.entry then
      local keyIndex = layer.keyIndex or own
      local entry = entryOf(keyIndex, layer.inHash, wanted[keyIndex])
      if not entry.parsed then parseEntry(entry, layer.policy) end
      layer.entry = entry
    end
  end

  for request = 1, count do
    if onCallerClock then now = tonumber(ARGV[times + request]) else now = serverNow end
    -- Each layer's reply goes out as remaining and reset; a refusal adds the rest below.
    local allowedAll, flag = true, r + 1
    r = flag
    for i = 1, n do
      local layer = plan[i]
      local entry, spec, kind, policy = layer.entry, layer.spec, layer.kind, layer.policy
      local state = entry.s
      if state and (entry.policy ~= policy or (kind ~= 'c' and entry.e <= now)) then state = nil end
      local allowed, remaining, reset, retryAfter, expiresAt, nextState
      if kind == 'r' then
        allowed, remaining, reset, retryAfter, expiresAt, nextState =
          spec.step(state, now, spec.limit, spec.windowMs)
        -- A read is the step of one request, not kept: what it would have left, plus that request.
        if not consume and allowed then remaining = remaining + 1 end
        -- A step may leave no state behind: then the layer's key is dropped.
        if expiresAt <= now then nextState = nil end
      elseif kind == 'q' then
        allowed, remaining, reset, retryAfter, expiresAt, nextState = quotaStep(state, spec.limit, spec.period)
      elseif spec.durable and not entry.raw and not entry.dirty then
        -- Durable credits with no state here (never seeded, or lost): not started from the grant.
        -- The request is refused with nothing changed, marked for its caller to seed and retry.
        allowed, remaining, reset, retryAfter, nextState = false, 0, 0, -1, nil
        expiresAt = 0
      else
        allowed, remaining, reset, retryAfter, nextState =
          creditsStep(state, spec.cost, spec.remaining, spec.grantedAt, spec.amount, spec.period)
        expiresAt = 0
      end
      if not allowed then allowedAll = false end
      layer.e, layer.s = expiresAt, nextState
      decided[i], waits[i] = allowed, retryAfter
      replies[r + 1], replies[r + 2] = remaining, reset
      r = r + 2
    end

    if allowedAll then
      replies[flag] = 1
      -- All-or-nothing: only an admitted request changes any layer.
      if consume then
        for i = 1, n do
          local layer = plan[i]
          local entry = layer.entry
          entry.dirty, entry.policy, entry.e, entry.s, entry.at = true, layer.policy, layer.e, layer.s, now
          -- Credits that start from nothing (a grant of 0 at 0, no refill) and are back to nothing
          -- are what no state means: the key is dropped rather than kept for good. A budgets hold's
          -- own layer is such (\`hold-layer.ts\` in \`@keyward/core/budgets\`): a settled hold
          -- leaves nothing behind. Only these: with another spec, no state reads otherwise. The
          -- spec's part is worked out once, when it is parsed.
          if layer.kind == 'c' then entry.atGrant = layer.spec.fromNothing and layer.s[2] == 0 end
          -- A billed layer's charge, with the state it went into (a later period or grant is not
          -- this charge's to undo). A give-back (a negative cost) is listed too: a step given up on
          -- is undone whole, so a settle's give-back and the hold's layer it took come back together.
          local kind, state = layer.kind, layer.s
          if kind == 'q' then
            charges[#charges + 1] = KEYS[layer.keyIndex or own] .. '\\tq\\t' .. string.format('%d', state[1])
          elseif kind == 'c' and layer.spec.cost ~= 0 then
            charges[#charges + 1] = KEYS[layer.keyIndex or own] .. '\\tc\\t' ..
              string.format('%d\\t%d\\t%d\\t%d', layer.spec.cost, state[1], state[3], layer.spec.remaining)
          end
        end
        if increments then
          for j = 1, #increments do
            local keyIndex, field, by, expireAt = unpack(increments[j])
            local id = keyIndex .. '\\t' .. field
            local bump = bumps[id]
            if not bump then
              bump = { keyIndex = keyIndex, field = field, by = 0 }
              bumps[id] = bump
              bumpOrder[#bumpOrder + 1] = bump
            end
            bump.by = bump.by + by
            if expireAt and (not bump.expireAt or expireAt > bump.expireAt) then bump.expireAt = expireAt end
            charges[#charges + 1] = KEYS[keyIndex] .. '\\ti\\t' .. field .. '\\t' .. string.format('%d', by)
          end
        end
      end
    else
      -- Spread out to allowed, remaining, reset, retryAfter per layer, from the last one back.
      replies[flag] = 0
      for i = n, 1, -1 do
        local at = flag + 4 * (i - 1)
        local remaining, reset = replies[flag + 2 * i - 1], replies[flag + 2 * i]
        replies[at + 1], replies[at + 2], replies[at + 3], replies[at + 4] =
          decided[i] and 1 or 0, remaining, reset, waits[i]
      end
      r = flag + 4 * n
    end
  end

  -- Usage counts every request that presented a valid key, admitted or not, as consume.ts does.
  if consume and #uses > 0 then
    local at = tonumber(lastUsedAt)
    for u = 1, #uses, 4 do
      local keyIndex, endpoint, day, requests = uses[u], uses[u + 1], uses[u + 2], uses[u + 3]
      local entry = entryOf(keyIndex, true, wanted[keyIndex])
      entry.counted = true
      local count = entry.count
      -- A field this group adds to but the hash's first group did not (a new day): read it now.
      if count[endpoint] == nil then countIn(entry, keyIndex, endpoint) end
      if count[day] == nil then countIn(entry, keyIndex, day) end
      count[endpoint] = count[endpoint] + requests
      count[day] = count[day] + requests
      if not entry.latest or entry.latest < at then entry.latest, entry.latestText = at, lastUsedAt end
    end
    for a = 1, useCount do
      local keyIndex, record = string.match(ARGV[useArgs + a], '^(%d+) (.+)$')
      local entry = entryOf(tonumber(keyIndex), true, wanted[tonumber(keyIndex)])
      if not entry.use or laterUse(record, entry.use) then entry.use = record end
    end
  end
end

-- On the callers' clocks Redis's own clock only collects garbage (the stored expiresAt decides), so
-- a state is kept a minute longer than it lasts.
local ttlSlack = onCallerClock and 60000 or 0
for t = 1, #touched do
  local index = touched[t]
  local entry, key = entries[index], KEYS[index]
  local policy, state = entry.policy, entry.s
  if entry.inHash then
    local changes = {}
    if entry.counted then
      local order, count = entry.order, entry.count
      for j = 1, #order do
        local field = order[j]
        changes[2 * j - 1], changes[2 * j] = fields[field], string.format('%d', count[field])
      end
    end
    if entry.dirty then
      if state then
        changes[#changes + 1] = 'rl'
        changes[#changes + 1] = encode(entry.e, state)
        if entry.storedPolicy ~= policy then
          changes[#changes + 1] = 'rp'
          changes[#changes + 1] = policy
        end
      elseif entry.raw or entry.storedPolicy then
        redis.call('HDEL', key, 'rl', 'rp')
      end
    end
    if entry.latest and (not entry.last or tonumber(entry.last) < entry.latest) then
      changes[#changes + 1] = 'last'
      changes[#changes + 1] = entry.latestText
    end
    if entry.use and laterUse(entry.use, redis.call('HGET', key, 'use') or nil) then
      changes[#changes + 1] = 'use'
      changes[#changes + 1] = entry.use
    end
    if #changes > 0 then redis.call('HSET', key, unpack(changes)) end
  elseif entry.dirty then
    if not state then
      redis.call('DEL', key)
    elseif policy == 'c' and entry.atGrant then
      redis.call('DEL', key)
    elseif policy == 'c' then
      redis.call('SET', key, string.format('%d:%d:%d', state[1], state[2], state[3]))
    else
      local text = encode(entry.e, state)
      if policy ~= '' then text = policy .. ':' .. text end
      redis.call('SET', key, text, 'PX', math.ceil(entry.e - entry.at + ttlSlack))
    end
  end
end
for b = 1, #bumpOrder do
  local bump = bumpOrder[b]
  redis.call('HINCRBY', KEYS[bump.keyIndex], bump.field, bump.by)
  if bump.expireAt then redis.call('PEXPIREAT', KEYS[bump.keyIndex], bump.expireAt) end
end
if #charges > 0 then redis.call('SET', paidKey, table.concat(charges, '\\n'), 'PX', ARGV[3]) end
return replies
`,
);
