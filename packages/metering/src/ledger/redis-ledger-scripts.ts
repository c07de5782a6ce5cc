/**
 * The Lua scripts of `redisLedger` (`redis-ledger.ts`). The export state of every window lives under
 * one hash tag (`{meter-export}`): one exporter at a time writes it, so one slot is no bottleneck,
 * and each script reaches all the windows it touches atomically, on a Redis Cluster too.
 *
 * An export state field is "<sink>\n<ownerId>\n<meter>", its value "<acknowledged>" or, with a
 * send pending, "<acknowledged> <from> <value> <preparedAt>".
 */

/** KEYS the counters; ARGV per addition "<keyIndex>", meter, amount, expireAt. */
export const addScript = `
for i = 1, #ARGV, 4 do
  local key = KEYS[tonumber(ARGV[i])]
  redis.call('HINCRBY', key, ARGV[i + 1], ARGV[i + 2])
  redis.call('PEXPIREAT', key, ARGV[i + 3])
end
return 1
`;

const readState = `
local function stateOf(key, field)
  local raw = redis.call('HGET', key, field)
  if not raw then return 0, nil end
  local acknowledged, from, value, preparedAt = string.match(raw, '^(%d+) (%d+) (%d+) (%d+)$')
  if acknowledged then return tonumber(acknowledged), { tonumber(from), tonumber(value), tonumber(preparedAt) } end
  return tonumber(raw), nil
end
local function keep(key, field, acknowledged, pending, expireAt)
  local text = string.format('%d', acknowledged)
  if pending then text = text .. string.format(' %d %d %d', pending[1], pending[2], pending[3]) end
  redis.call('HSET', key, field, text)
  redis.call('PEXPIREAT', key, expireAt)
end
`;

/**
 * KEYS the windows' export states; ARGV[1] now, then per send "<keyIndex>", field, from, value,
 * expireAt. Returns per send its pending send as stored, "<from> <value> <preparedAt>", or "" for none.
 */
export const prepareScript = `${readState}
local now, answers = tonumber(ARGV[1]), {}
for i = 2, #ARGV, 5 do
  local key, field = KEYS[tonumber(ARGV[i])], ARGV[i + 1]
  local from, value = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  local acknowledged, pending = stateOf(key, field)
  -- Frozen only where nothing is pending and the offset is still the acknowledged one.
  if not pending and acknowledged == from then
    pending = { from, value, now }
    keep(key, field, acknowledged, pending, ARGV[i + 4])
  end
  if pending then
    answers[#answers + 1] = string.format('%d %d %d', pending[1], pending[2], pending[3])
  else
    answers[#answers + 1] = ''
  end
end
return answers
`;

/** KEYS the windows' export states; ARGV per send "<keyIndex>", field, from, expireAt. */
export const acknowledgeScript = `${readState}
for i = 1, #ARGV, 4 do
  local key, field = KEYS[tonumber(ARGV[i])], ARGV[i + 1]
  local acknowledged, pending = stateOf(key, field)
  if pending and pending[1] == tonumber(ARGV[i + 2]) then
    keep(key, field, pending[1] + pending[2], nil, ARGV[i + 3])
  end
end
return 1
`;

/** KEYS[1] the window's export state, KEYS[2] the adjustments; ARGV field, value, adjustment JSON, expireAt. */
export const setAsideScript = `${readState}
local acknowledged = stateOf(KEYS[1], ARGV[1])
keep(KEYS[1], ARGV[1], acknowledged + tonumber(ARGV[2]), nil, ARGV[4])
redis.call('RPUSH', KEYS[2], ARGV[3])
return 1
`;

/** KEYS[1] the lease; ARGV holder, ttlMs, now. 1 when taken or extended. */
export const leaseScript = `
local raw = redis.call('GET', KEYS[1])
if raw then
  local holder, untilAt = string.match(raw, '^(.*)\\n(%d+)$')
  if holder ~= ARGV[1] and tonumber(untilAt) > tonumber(ARGV[3]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. '\\n' .. string.format('%d', tonumber(ARGV[3]) + tonumber(ARGV[2])))
return 1
`;

/** KEYS[1] the lease; ARGV[1] the holder: released only if it is the holder's. */
export const releaseScript = `
local raw = redis.call('GET', KEYS[1])
if raw and string.match(raw, '^(.*)\\n%d+$') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;
