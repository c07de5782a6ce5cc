/**
 * The key store's scripts. Every key they touch shares the `{keys}` hash tag, so each is atomic on a
 * single server and on a cluster alike. A record is a hash of the `StoredKey` fields; null times
 * are absent fields.
 */
import { luaScript } from "../client/lua-script.js";

/**
 * KEYS: record, hash index, owner set, and (for a record that already has a previous secret) that
 * secret's index. ARGV[1] the id, then field/value pairs.
 * Returns 0, or 1 for a duplicate id, 2 for a duplicate hash (nothing written).
 */
export const createKeyScript = luaScript(
  "create-key",
  `
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 2 end
if KEYS[4] and redis.call('EXISTS', KEYS[4]) == 1 then return 2 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SET', KEYS[2], ARGV[1])
if KEYS[4] then redis.call('SET', KEYS[4], ARGV[1]) end
redis.call('SADD', KEYS[3], ARGV[1])
return 0
`,
);

/**
 * KEYS[1] the hash index; ARGV[1] the record key prefix. The record's name is known only once the
 * index is read; it carries the same hash tag, so it is in the slot of KEYS[1].
 */
export const findKeyByHashScript = luaScript(
  "find-key-by-hash",
  `
local id = redis.call('GET', KEYS[1])
if not id then return false end
return redis.call('HGETALL', ARGV[1] .. id)
`,
);

/** KEYS[1] the record. */
export const findKeyByIdScript = luaScript(
  "find-key-by-id",
  "return redis.call('HGETALL', KEYS[1])",
);

/** KEYS[1] the owner set; ARGV[1] the record key prefix. Every record, unordered. */
export const listKeysByOwnerScript = luaScript(
  "list-keys-by-owner",
  `
local records = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local record = redis.call('HGETALL', ARGV[1] .. id)
  if #record > 0 then records[#records + 1] = record end
end
return records
`,
);

/**
 * The compare-and-set. KEYS: record, index of the expected hash, index of the new hash.
 * ARGV: expected hash, new hash, hint, rotatedAt, id, the grace's end ("" for none), how long the
 * replaced secret's index is kept (ms), the hash index prefix.
 * Returns the new record; nil when the key is missing, revoked or no longer has the expected hash;
 * 1 when the new hash belongs to a key already (nothing written).
 *
 * An earlier grace's secret is unindexed whatever this rotation's grace: at most one previous
 * secret is ever found. The replaced secret's index is kept for the grace plus a margin, by a TTL
 * relative to now rather than the grace's end as a time, so that neither skew between the
 * application's clock and Redis's nor a test's fake clock can end a grace early; the deadline itself
 * is checked by verification against the record's previousSecretExpiresAt.
 */
export const rotateKeyScript = luaScript(
  "rotate-key",
  `
local current = redis.call('HMGET', KEYS[1], 'secretHash', 'revokedAt', 'previousSecretHash')
if not current[1] or current[2] or current[1] ~= ARGV[1] then return false end
if redis.call('EXISTS', KEYS[3]) == 1 then return 1 end
if current[3] then redis.call('DEL', ARGV[8] .. current[3]) end
if ARGV[6] == '' then
  redis.call('DEL', KEYS[2])
  redis.call('HDEL', KEYS[1], 'previousSecretHash', 'previousSecretExpiresAt')
else
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
  redis.call('HSET', KEYS[1], 'previousSecretHash', ARGV[1], 'previousSecretExpiresAt', ARGV[6])
end
redis.call('SET', KEYS[3], ARGV[5])
redis.call('HSET', KEYS[1], 'secretHash', ARGV[2], 'hint', ARGV[3], 'rotatedAt', ARGV[4])
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * KEYS[1] the owner set; ARGV[1] the record key prefix, ARGV[2] the owner's tier. Sets `ownerTier`
 * on every record of the owner that holds another value, and returns those records.
 */
export const setOwnerTierScript = luaScript(
  "set-owner-tier",
  `
local changed = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local record = ARGV[1] .. id
  local current = redis.call('HGET', record, 'ownerTier')
  if redis.call('EXISTS', record) == 1 and current ~= ARGV[2] then
    redis.call('HSET', record, 'ownerTier', ARGV[2])
    changed[#changed + 1] = redis.call('HGETALL', record)
  end
end
return changed
`,
);

/** KEYS[1] the record; ARGV[1] revokedAt. The revoked record, or nil if missing or already revoked. */
export const revokeKeyScript = luaScript(
  "revoke-key",
  `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'revokedAt') == 1 then
  return false
end
redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1])
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * KEYS[1] the record; ARGV[1] how many name/value arguments follow to set, then those, then the
 * fields to delete. The updated record, or nil if the key is missing or revoked (nothing written).
 */
export const updateKeyScript = luaScript(
  "update-key",
  `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'revokedAt') == 1 then
  return false
end
local setCount = tonumber(ARGV[1])
if setCount > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 2, 1 + setCount)) end
if #ARGV > 1 + setCount then redis.call('HDEL', KEYS[1], unpack(ARGV, 2 + setCount)) end
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * KEYS[1] the record; ARGV[1] the limits as JSON, or "" to remove them. The record, or nil if missing.
 */
export const setKeyLimitsScript = luaScript(
  "set-key-limits",
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'limits')
else
  redis.call('HSET', KEYS[1], 'limits', ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
`,
);
