/**
 * The webhook outbox's scripts. Every key carries the `{keys}` tag of the events, so each script
 * is atomic on a cluster too. A delivery is a hash; `due` scores pending deliveries by when they
 * are due, which is also when a claimer's lease ends, so a delivery whose claimer died is due
 * again without anyone having to notice. Listings hold `<time>:<id>` members scored 0, by lex.
 */
import { luaScript } from "../client/lua-script.js";

/** A hash as a JSON object (all values strings). */
const hashAsJson = `
local function hashJson(key)
  local flat = redis.call('HGETALL', key)
  local map = {}
  for i = 1, #flat, 2 do map[flat[i]] = flat[i + 1] end
  return cjson.encode(map)
end
`;

/**
 * KEYS[1] undispatched, KEYS[2] the `all` listing, KEYS[3] the `pending` listing; ARGV[1] how
 * many events, ARGV[2] now, ARGV[3] the routes (JSON `[{ endpointId, types? }]`), ARGV[4] the
 * event hash prefix, ARGV[5] the delivery hash prefix, ARGV[6] the due sets' prefix. Answers how
 * many events it took.
 */
export const dispatchScript = luaScript(
  "webhooks-dispatch",
  `
local members = redis.call('ZRANGEBYLEX', KEYS[1], '-', '+', 'LIMIT', 0, tonumber(ARGV[1]))
local routes = cjson.decode(ARGV[3])
for _, member in ipairs(members) do
  redis.call('ZREM', KEYS[1], member)
  local separator = string.find(member, ':', 1, true)
  local time = string.sub(member, 1, separator - 1)
  local eventId = string.sub(member, separator + 1)
  local record = ARGV[4] .. eventId
  local json = redis.call('HGET', record, 'json')
  if json then
    local eventType = cjson.decode(json)['type']
    local ids = {}
    for _, route in ipairs(routes) do
      local matches = type(route['types']) ~= 'table'
      if not matches then
        for _, wanted in ipairs(route['types']) do
          if wanted == eventType then matches = true end
        end
      end
      if matches then
        local id = 'whd_' .. string.sub(eventId, 5) .. '_' .. route['endpointId']
        local key = ARGV[5] .. id
        if redis.call('EXISTS', key) == 0 then
          redis.call('HSET', key, 'id', id, 'eventId', eventId, 'endpointId', route['endpointId'],
            'occurredAt', time, 'status', 'pending', 'attempts', '0', 'nextAttemptAt', ARGV[2])
          redis.call('ZADD', ARGV[6] .. route['endpointId'], ARGV[2], id)
          redis.call('ZADD', KEYS[2], 0, time .. ':' .. id)
          redis.call('ZADD', KEYS[3], 0, time .. ':' .. id)
          ids[#ids + 1] = id
        end
      end
    end
    if #ids > 0 then redis.call('HSET', record, 'deliveries', table.concat(ids, ' ')) end
  end
end
return #members
`,
);

/**
 * KEYS the due sets of the endpoints to claim for; ARGV[1] now, ARGV[2] lease ms, ARGV[3] how
 * many, ARGV[4] the lease token, ARGV[5] the delivery hash prefix, ARGV[6] the event hash prefix.
 * Answers delivery JSON, event JSON, … for each claimed delivery; a due entry whose delivery or
 * event is gone is dropped.
 */
export const claimScript = luaScript(
  "webhooks-claim",
  `${hashAsJson}
local leaseEnd = string.format('%.0f', tonumber(ARGV[1]) + tonumber(ARGV[2]))
local left = tonumber(ARGV[3])
local claimed = {}
for _, due in ipairs(KEYS) do
  if left <= 0 then break end
  local ids = redis.call('ZRANGEBYSCORE', due, '-inf', ARGV[1], 'LIMIT', 0, left)
  for _, id in ipairs(ids) do
    local key = ARGV[5] .. id
    local eventId = redis.call('HGET', key, 'eventId')
    local json = eventId and redis.call('HGET', ARGV[6] .. eventId, 'json')
    if json then
      redis.call('HINCRBY', key, 'attempts', 1)
      redis.call('HSET', key, 'nextAttemptAt', leaseEnd, 'lastAttemptAt', ARGV[1], 'lease', ARGV[4])
      redis.call('ZADD', due, leaseEnd, id)
      claimed[#claimed + 1] = hashJson(key)
      claimed[#claimed + 1] = json
      left = left - 1
    else
      redis.call('ZREM', due, id)
    end
  end
end
return claimed
`,
);

/**
 * KEYS[1] the delivery's hash; ARGV[1] id, ARGV[2] lease, ARGV[3] outcome (`pending`,
 * `delivered`, `dead`), ARGV[4] next attempt (pending), ARGV[5] response status (or ''), ARGV[6]
 * error, ARGV[7] the time it ended, ARGV[8] the due sets' prefix, ARGV[9] the listings' prefix. 1
 * if recorded, 0 if the lease is no longer this one.
 */
export const settleScript = luaScript(
  "webhooks-settle",
  `
local key = KEYS[1]
local fields = redis.call('HMGET', key, 'status', 'lease', 'occurredAt', 'endpointId')
if fields[1] ~= 'pending' or fields[2] ~= ARGV[2] then return 0 end
local due = ARGV[8] .. fields[4]
redis.call('HDEL', key, 'lease')
redis.call('HSET', key, 'lastResponseStatus', ARGV[5])
if ARGV[3] == 'pending' then
  redis.call('HSET', key, 'nextAttemptAt', ARGV[4], 'lastError', ARGV[6])
  redis.call('ZADD', due, ARGV[4], ARGV[1])
  return 1
end
local member = fields[3] .. ':' .. ARGV[1]
redis.call('ZREM', due, ARGV[1])
redis.call('ZREM', ARGV[9] .. 'pending', member)
redis.call('ZADD', ARGV[9] .. ARGV[3], 0, member)
redis.call('HSET', key, 'status', ARGV[3])
redis.call('HDEL', key, 'nextAttemptAt')
if ARGV[3] == 'delivered' then
  redis.call('HSET', key, 'deliveredAt', ARGV[7])
  redis.call('HDEL', key, 'lastError')
else
  redis.call('HSET', key, 'lastError', ARGV[6])
end
return 1
`,
);

/**
 * KEYS[1] the delivery's hash; ARGV[1] id, ARGV[2] now, ARGV[3] the due sets' prefix, ARGV[4]
 * the listings' prefix. A delivered or dead delivery becomes pending, due now, attempts reset; a pending one is
 * left as it is (resetting it could hand a leased attempt to a second claimer). Answers its JSON,
 * or false for an unknown id.
 */
export const redeliverScript = luaScript(
  "webhooks-redeliver",
  `${hashAsJson}
local key = KEYS[1]
local fields = redis.call('HMGET', key, 'status', 'occurredAt', 'endpointId')
if not fields[1] then return false end
if fields[1] ~= 'pending' then
  local member = fields[2] .. ':' .. ARGV[1]
  redis.call('ZREM', ARGV[4] .. fields[1], member)
  redis.call('ZADD', ARGV[4] .. 'pending', 0, member)
  redis.call('HSET', key, 'status', 'pending', 'attempts', '0', 'nextAttemptAt', ARGV[2])
  redis.call('HDEL', key, 'deliveredAt', 'lease')
  redis.call('ZADD', ARGV[3] .. fields[3], ARGV[2], ARGV[1])
end
return hashJson(key)
`,
);

/**
 * KEYS[1] a listing; ARGV[1] the upper bound (`+`, or `(<member>`), ARGV[2] how many, ARGV[3] the
 * delivery hash prefix. Newest first: member, delivery JSON, … (a delivery gone meanwhile is left out).
 */
export const listDeliveriesScript = luaScript(
  "webhooks-list",
  `${hashAsJson}
local members = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[1], '-', 'LIMIT', 0, tonumber(ARGV[2]))
local found = {}
for _, member in ipairs(members) do
  local key = ARGV[3] .. string.sub(member, string.find(member, ':', 1, true) + 1)
  if redis.call('EXISTS', key) == 1 then
    found[#found + 1] = member
    found[#found + 1] = hashJson(key)
  end
end
return found
`,
);
