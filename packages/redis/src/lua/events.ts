/**
 * Events on Redis. A change and its events are written by one script: each key script has a
 * variant (`withEvents`) that runs the script's own body, then, only if it changed something,
 * stores the events it was given. Each event is a hash (its JSON, and the names of the sets that
 * list it) and a member `<time>:<id>` of three sorted sets (every event, the owner's, the key's),
 * all scored 0 and read by lex, so they order by time and then id, as the audit log does. Every
 * key carries the `{keys}` tag, so this is atomic on a cluster too.
 */
import { type LuaScript, luaScript } from "../client/lua-script.js";

/**
 * `script`'s body, then its events. The events' keys and arguments come after the script's own, and
 * are taken off `KEYS` and `ARGV` before the body runs, so it sees exactly what it always did:
 * per event, KEYS event hash, all events, owner's events, key's events, the webhook outbox's
 * undispatched set; ARGV the JSON and the member; then ARGV's last, the number of events. A body
 * changed something when it answered 0 (create) or a record (rotate, revoke, update). The event's
 * member goes into the undispatched set in the same script: no event is stored without its mark.
 */
export function withEvents(script: LuaScript): LuaScript {
  return luaScript(
    `${script.name}-with-events`,
    `
local eventCount = tonumber(table.remove(ARGV))
local eventArgs, eventKeys = {}, {}
for i = eventCount * 2, 1, -1 do eventArgs[i] = table.remove(ARGV) end
for i = eventCount * 5, 1, -1 do eventKeys[i] = table.remove(KEYS) end
local function change()
${script.source}
end
local result = change()
if result == 0 or type(result) == 'table' then
  for i = 0, eventCount - 1 do
    local record, all, owner, key = eventKeys[i * 5 + 1], eventKeys[i * 5 + 2], eventKeys[i * 5 + 3], eventKeys[i * 5 + 4]
    local json, member = eventArgs[i * 2 + 1], eventArgs[i * 2 + 2]
    redis.call('HSET', record, 'json', json, 'owner', owner, 'key', key, 'member', member)
    redis.call('ZADD', all, 0, member)
    redis.call('ZADD', owner, 0, member)
    redis.call('ZADD', key, 0, member)
    redis.call('ZADD', eventKeys[i * 5 + 5], 0, member)
  end
end
return result
`,
  );
}

/**
 * KEYS[1] a sorted set of events; ARGV[1] the upper bound (`+`, or `(<member>` to start after a
 * cursor), ARGV[2] how many, ARGV[3] the event hash prefix. Newest first: member, JSON, member,
 * JSON… (an event pruned meanwhile is left out).
 */
export const readEventsScript = luaScript(
  "read-events",
  `
local members = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[1], '-', 'LIMIT', 0, tonumber(ARGV[2]))
local found = {}
for _, member in ipairs(members) do
  local id = string.sub(member, string.find(member, ':', 1, true) + 1)
  local json = redis.call('HGET', ARGV[3] .. id, 'json')
  if json then
    found[#found + 1] = member
    found[#found + 1] = json
  end
end
return found
`,
);

/**
 * KEYS[1] every event, KEYS[2] the undispatched set; ARGV[1] the exclusive upper bound
 * (`(<time>:`), ARGV[2] the most to delete, ARGV[3] the event hash prefix, ARGV[4] the delivery
 * hash prefix, ARGV[5] the delivery listings' prefix, ARGV[6] the due sets' prefix. Deletes the oldest events before
 * the bound, from every set that lists them, with their outbox marks and their webhook
 * deliveries, and answers how many.
 */
export const pruneEventsScript = luaScript(
  "prune-events",
  `
local members = redis.call('ZRANGEBYLEX', KEYS[1], '-', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(members) do
  local record = ARGV[3] .. string.sub(member, string.find(member, ':', 1, true) + 1)
  local sets = redis.call('HMGET', record, 'owner', 'key')
  if sets[1] then redis.call('ZREM', sets[1], member) end
  if sets[2] then redis.call('ZREM', sets[2], member) end
  redis.call('ZREM', KEYS[2], member)
  local deliveries = redis.call('HGET', record, 'deliveries')
  if deliveries then
    local time = string.sub(member, 1, string.find(member, ':', 1, true) - 1)
    for id in string.gmatch(deliveries, '%S+') do
      local endpoint = redis.call('HGET', ARGV[4] .. id, 'endpointId')
      if endpoint then redis.call('ZREM', ARGV[6] .. endpoint, id) end
      redis.call('DEL', ARGV[4] .. id)
      for _, list in ipairs({ 'all', 'pending', 'delivered', 'dead' }) do
        redis.call('ZREM', ARGV[5] .. list, time .. ':' .. id)
      end
    end
  end
  redis.call('DEL', record)
  redis.call('ZREM', KEYS[1], member)
end
return #members
`,
);

/**
 * Events written on their own (`EventLog.append`). Per entry, KEYS event hash, all events, owner's
 * events, key's events, once-marker (any key of the tag when the entry has no once-key), the
 * webhook outbox's undispatched set (marked in the same script, as `withEvents` does); ARGV JSON,
 * member, held-until in ms (empty: no once-key). ARGV's last: now, in ms. An entry whose marker
 * holds a later time than now is skipped; otherwise the marker is set to its held-until, expiring
 * then (a relative TTL), and the event is written as `withEvents` writes one. Answers the 1-based
 * indexes of the entries written.
 */
export const appendEventsScript = luaScript(
  "append-events",
  `
local now = tonumber(ARGV[#ARGV])
local written = {}
for i = 0, (#KEYS / 6) - 1 do
  local record, all, owner, key, marker = KEYS[i * 6 + 1], KEYS[i * 6 + 2], KEYS[i * 6 + 3], KEYS[i * 6 + 4], KEYS[i * 6 + 5]
  local json, member, untilText = ARGV[i * 3 + 1], ARGV[i * 3 + 2], ARGV[i * 3 + 3]
  local free = true
  if untilText ~= '' then
    local held = redis.call('GET', marker)
    if held and tonumber(held) > now then
      free = false
    else
      redis.call('SET', marker, untilText, 'PX', math.max(1, tonumber(untilText) - now))
    end
  end
  if free then
    redis.call('HSET', record, 'json', json, 'owner', owner, 'key', key, 'member', member)
    redis.call('ZADD', all, 0, member)
    redis.call('ZADD', owner, 0, member)
    redis.call('ZADD', key, 0, member)
    redis.call('ZADD', KEYS[i * 6 + 6], 0, member)
    written[#written + 1] = i + 1
  end
end
return written
`,
);
