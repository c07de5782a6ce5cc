/**
 * Usage counters: one hash per API key, `<prefix>usage:{key:<id>}`, under the same hash tag as the
 * key's rate-limit state so that `consume` can update both in one script on a cluster.
 *
 * Fields: `e:<METHOD> <route>` → requests to that endpoint; `d:<YYYY-MM-DD>` → requests that UTC
 * day; `last` → the latest use, epoch ms. The total is the sum of the days (every request is
 * counted in exactly one day), so it is not stored: one write fewer per request. HTTP methods are
 * tokens without spaces, so the first space after `e:` separates method from route.
 */
import { luaScript } from "../client/lua-script.js";

/**
 * Adds a batch for one key. KEYS[1] the usage hash; ARGV: repeated (endpoint field, day field,
 * count, lastUsedAt). Increments commute; `last` keeps the maximum.
 */
export const recordUsageScript = luaScript(
  "record-usage",
  `
local last = tonumber(redis.call('HGET', KEYS[1], 'last'))
local latest = last
for i = 1, #ARGV, 4 do
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

/** The last use of one key, or nil. KEYS[1] the usage hash. */
export const lastUsedScript = luaScript("last-used", "return redis.call('HGET', KEYS[1], 'last')");
