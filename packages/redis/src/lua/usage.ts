/**
 * Usage counters: one hash per API key, `<prefix>usage:{key:<id>}`, under the same hash tag as the
 * key's rate-limit state so that `consume` can update both in one script on a cluster.
 *
 * Fields: `e:<METHOD> <route>` → requests to that endpoint; `d:<YYYY-MM-DD>` → requests that UTC
 * day; `last` → the latest use, epoch ms; `use` → the fields of the latest use that wrote any,
 * "<at> <fields>" (`later-use.ts`); `pruned` → requests of days removed by retention
 * (`usage.retainDays`). The total is the sum of the days plus `pruned` (every request is counted in
 * exactly one of them), so it is not stored: one write fewer per request. HTTP methods are
 * tokens without spaces, so the first space after `e:` separates method from route.
 */
import { luaScript } from "../client/lua-script.js";
import { luaLaterUse } from "./later-use.js";

/**
 * Adds a batch for one key. KEYS[1] the usage hash; ARGV[1] the latest use fields of the batch,
 * "<at> <fields>", or "" for none; then repeated (endpoint field, day field, count, lastUsedAt).
 * Increments commute; `last` keeps the maximum, `use` the latest use fields.
 */
export const recordUsageScript = luaScript(
  "record-usage",
  `
${luaLaterUse}
if ARGV[1] ~= '' and laterUse(ARGV[1], redis.call('HGET', KEYS[1], 'use') or nil) then
  redis.call('HSET', KEYS[1], 'use', ARGV[1])
end
local last = tonumber(redis.call('HGET', KEYS[1], 'last'))
local latest = last
for i = 2, #ARGV, 4 do
  local count = ARGV[i + 2]
  redis.call('HINCRBY', KEYS[1], ARGV[i], count)
  redis.call('HINCRBY', KEYS[1], ARGV[i + 1], count)
  local at = tonumber(ARGV[i + 3])
  if not latest or at > latest then latest = at end
end
if latest and latest ~= last then redis.call('HSET', KEYS[1], 'last', string.format('%.17g', latest)) end
return 1
`,
);

/** The whole usage hash of one key, as a flat field/value list. KEYS[1] the usage hash. */
export const readUsageScript = luaScript("read-usage", "return redis.call('HGETALL', KEYS[1])");

/** The last use of one key and its fields: { last or nil, use or nil }. KEYS[1] the usage hash. */
export const lastUsedScript = luaScript(
  "last-used",
  "return redis.call('HMGET', KEYS[1], 'last', 'use')",
);

/**
 * One page of usage hashes, for pruning: `SCAN` with a cursor, so Redis never blocks on the whole
 * keyspace. No KEYS (the script names none): single server only. ARGV: cursor, MATCH pattern,
 * COUNT. Returns { next cursor, keys }.
 */
export const scanUsageScript = luaScript(
  "scan-usage",
  "return redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])",
);

/**
 * Folds the day fields of one key's usage hash before a day into its `pruned` field and deletes
 * them, atomically. KEYS[1] the usage hash; ARGV[1] the first day kept, as a field (`d:YYYY-MM-DD`:
 * such fields sort by date). The total stays the days plus `pruned`; the endpoint fields count
 * every request already, so they are left alone. Returns how many day fields were removed.
 */
export const pruneUsageScript = luaScript(
  "prune-usage",
  `
local fields = redis.call('HKEYS', KEYS[1])
local old = {}
for _, field in ipairs(fields) do
  if string.sub(field, 1, 2) == 'd:' and field < ARGV[1] then old[#old + 1] = field end
end
if #old == 0 then return 0 end
local counts = redis.call('HMGET', KEYS[1], unpack(old))
local sum = 0
for _, count in ipairs(counts) do sum = sum + (tonumber(count) or 0) end
redis.call('HINCRBY', KEYS[1], 'pruned', sum)
redis.call('HDEL', KEYS[1], unpack(old))
return #old
`,
);
