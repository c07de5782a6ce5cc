/**
 * The key store's scripts. Every key they touch shares the `{keys}` hash tag, so each is atomic on a
 * single server and on a cluster alike. A record is a hash of the `StoredKey` fields; null times
 * are absent fields.
 */
import { luaScript } from "../client/lua-script.js";

/**
 * Lua that defines `nextVersion(record)`: adds 1 to the record's `version` field and answers the
 * new one. Every script that changes a record calls it in the same run. A record written before
 * versions has no field and reads as version 1, so its first change makes it 2.
 */
const nextVersion = `
local function nextVersion(record)
  local version = tonumber(redis.call('HGET', record, 'version') or '1') + 1
  redis.call('HSET', record, 'version', version)
  return version
end
`;

/**
 * KEYS: record, hash index, owner set, expiring-keys index, the owner's listing index, the live
 * keys' index, and (for a record that already has a previous secret) that secret's index. ARGV[1]
 * the id, then field/value pairs. Returns 0, or 1 for a duplicate id, 2 for a duplicate hash
 * (nothing written). A key with an expiry that is not revoked joins the expiring-keys index, scored
 * by it; a key not revoked joins the live keys' index (`listLive`). Every key joins its owner's
 * listing index, scored by `createdAt`, in this same script, so that index never misses a key the
 * owner set has (`listKeysByOwnerScript` relies on it).
 */
export const createKeyScript = luaScript(
  "create-key",
  `
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 2 end
if KEYS[7] and redis.call('EXISTS', KEYS[7]) == 1 then return 2 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SET', KEYS[2], ARGV[1])
if KEYS[7] then redis.call('SET', KEYS[7], ARGV[1]) end
redis.call('SADD', KEYS[3], ARGV[1])
local fields = redis.call('HMGET', KEYS[1], 'expiresAt', 'revokedAt', 'createdAt')
if fields[1] and not fields[2] then redis.call('ZADD', KEYS[4], fields[1], ARGV[1]) end
if not fields[2] then redis.call('ZADD', KEYS[6], 0, ARGV[1]) end
redis.call('ZADD', KEYS[5], fields[3], ARGV[1])
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

/**
 * `listByOwner`. KEYS[1] the owner set, KEYS[2] the owner's listing index (ids scored by
 * `createdAt`); ARGV: the record key prefix, how many ('' for all), the cursor's createdAt ('' for
 * none) and id. The records, newest first: `createdAt` descending, then id descending. A sorted set
 * orders equal scores by member, bytewise, which is code-unit order for our ASCII ids, so reading
 * it backwards by rank is exactly `newestKeyFirst`.
 *
 * A page reads only the ids from where it starts and the records it answers. Where it starts:
 * after the cursor's own rank when the cursor is a listed key (a page's last key, as cursors are);
 * otherwise after every key newer than the cursor's time, skipping the keys of that same
 * millisecond whose id is not below the cursor's. Ids are read in batches of at most the page's
 * size (500 without a limit) until the page is full; a member whose record is gone is skipped.
 *
 * Data written by a release before the index has the owner set only. When the index holds fewer
 * ids than the set (such data, or keys an instance of that release created since), it is rebuilt
 * from the set first, reading each record's createdAt: once, as the next listing finds both the
 * same size. An id whose record is missing is indexed at -inf, so it never triggers a rebuild
 * again and is skipped like any other missing record.
 */
export const listKeysByOwnerScript = luaScript(
  "list-keys-by-owner",
  `
if redis.call('ZCARD', KEYS[2]) < redis.call('SCARD', KEYS[1]) then
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    local createdAt = redis.call('HGET', ARGV[1] .. id, 'createdAt')
    redis.call('ZADD', KEYS[2], createdAt or '-inf', id)
  end
end
-- Bytewise, as the sorted set orders members: Lua's own < follows the server's locale.
local function bytesBefore(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
local limit = ARGV[2] ~= '' and tonumber(ARGV[2]) or nil
local afterTime = ARGV[3] ~= '' and tonumber(ARGV[3]) or nil
local afterId = ARGV[4]
local rank = 0
if afterTime then
  local score = redis.call('ZSCORE', KEYS[2], afterId)
  if score and tonumber(score) == afterTime then
    rank = redis.call('ZREVRANK', KEYS[2], afterId) + 1
  else
    rank = redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[3], '+inf')
  end
end
local batchSize = limit and math.max(1, math.min(limit, 500)) or 500
local records = {}
while not limit or #records < limit do
  local batch = redis.call('ZREVRANGE', KEYS[2], rank, rank + batchSize - 1, 'WITHSCORES')
  if #batch == 0 then break end
  rank = rank + #batch / 2
  for i = 1, #batch, 2 do
    local id = batch[i]
    local notYet = afterTime and tonumber(batch[i + 1]) == afterTime and not bytesBefore(id, afterId)
    if not notYet and (not limit or #records < limit) then
      local record = redis.call('HGETALL', ARGV[1] .. id)
      if #record > 0 then records[#records + 1] = record end
    end
  end
end
return records
`,
);

/**
 * The compare-and-set. KEYS: record, index of the expected hash, index of the new hash.
 * ARGV: expected hash, new hash, hint, rotatedAt, id, the grace's end ("" for none), how long the
 * replaced secret's index is kept (ms), the hash index prefix, the expected version ("" for any),
 * how many name/value arguments of feature fields to set follow, then those, then the feature
 * fields to delete (both `field:<name>`, see `keys/key-fields.ts`).
 * Returns the new record; nil when the key is missing, revoked, no longer has the expected hash or
 * is at another version than the expected one;
 * 1 when the new hash belongs to a key already (nothing written).
 *
 * An earlier grace's secret is unindexed whatever this rotation's grace: at most one previous
 * secret is ever found. The replaced secret's index is kept for the grace plus a margin, by a TTL
 * relative to now rather than the grace's end as a time, so that neither skew between the
 * application's clock and Redis's nor a test's fake clock can end a grace early; the deadline itself
 * is checked by verification against the record's previousSecretExpiresAt.
 */
/**
 * `countLiveByOwner`. KEYS[1] the owner set; ARGV: the record key prefix, `now` (epoch ms). How
 * many of the owner's records are neither revoked nor expired at `now` (an expiry at `now` has
 * passed). Each record is asked for two fields and its `createdAt`, which tells a record that is
 * gone (skipped, as `listByOwner` skips it); nothing is sent back but the count.
 */
export const countLiveKeysByOwnerScript = luaScript(
  "count-live-keys-by-owner",
  `
local now = tonumber(ARGV[2])
local live = 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local fields = redis.call('HMGET', ARGV[1] .. id, 'createdAt', 'revokedAt', 'expiresAt')
  if fields[1] and not fields[2] and (not fields[3] or tonumber(fields[3]) > now) then
    live = live + 1
  end
end
return live
`,
);

export const rotateKeyScript = luaScript(
  "rotate-key",
  `${nextVersion}
local current = redis.call('HMGET', KEYS[1], 'secretHash', 'revokedAt', 'previousSecretHash', 'version')
if not current[1] or current[2] or current[1] ~= ARGV[1] then return false end
local expectedVersion = ARGV[9]
if expectedVersion ~= '' and tonumber(current[4] or '1') ~= tonumber(expectedVersion) then
  return false
end
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
-- Feature fields written with the rotation: ARGV[10] name/value arguments to set, then names to delete.
local setCount = tonumber(ARGV[10])
if setCount > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 11, 10 + setCount)) end
if #ARGV > 10 + setCount then redis.call('HDEL', KEYS[1], unpack(ARGV, 11 + setCount)) end
nextVersion(KEYS[1])
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * KEYS[1] the owner set; ARGV[1] the record key prefix, ARGV[2] the owner's tier. Sets `ownerTier`
 * on every record of the owner that holds another value, and returns those records.
 */
export const setOwnerTierScript = luaScript(
  "set-owner-tier",
  `${nextVersion}
local changed = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local record = ARGV[1] .. id
  local current = redis.call('HGET', record, 'ownerTier')
  if redis.call('EXISTS', record) == 1 and current ~= ARGV[2] then
    redis.call('HSET', record, 'ownerTier', ARGV[2])
    nextVersion(record)
    changed[#changed + 1] = redis.call('HGETALL', record)
  end
end
return changed
`,
);

/**
 * KEYS[1] the record, KEYS[2] the expiring-keys index, KEYS[3] the live keys' index; ARGV[1]
 * revokedAt, ARGV[2] the id. The revoked record, or nil if missing or already revoked. A revoked
 * key leaves both indexes.
 */
export const revokeKeyScript = luaScript(
  "revoke-key",
  `${nextVersion}
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'revokedAt') == 1 then
  return false
end
redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1])
nextVersion(KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * `listExpiring`. KEYS[1] the expiring-keys index; ARGV: from, to (exclusive), how many, the
 * cursor's expiry ('' for none) and id, the record key prefix. Records of keys not revoked, by
 * score then id (a sorted set orders equal scores by member, bytewise: code-unit order for our
 * ASCII ids). Members whose record is gone or revoked (left by hand) are skipped, never answered.
 */
export const listExpiringKeysScript = luaScript(
  "list-expiring-keys",
  `
-- Bytewise, as the sorted set orders members: Lua's own < follows the server's locale.
local function bytesAfter(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end
local limit = tonumber(ARGV[3])
local afterExpiry = ARGV[4] ~= '' and tonumber(ARGV[4]) or nil
local min = afterExpiry and ARGV[4] or ARGV[1]
local records = {}
local offset = 0
while #records < limit do
  local batch = redis.call('ZRANGEBYSCORE', KEYS[1], min, '(' .. ARGV[2], 'WITHSCORES', 'LIMIT', offset, 100)
  if #batch == 0 then break end
  offset = offset + #batch / 2
  for i = 1, #batch, 2 do
    local id, score = batch[i], tonumber(batch[i + 1])
    local passed = afterExpiry and score == afterExpiry and not bytesAfter(id, ARGV[5])
    if not passed and score >= tonumber(ARGV[1]) and #records < limit then
      local record = ARGV[6] .. id
      if redis.call('EXISTS', record) == 1 and redis.call('HEXISTS', record, 'revokedAt') == 0 then
        records[#records + 1] = redis.call('HGETALL', record)
      end
    end
  end
end
return records
`,
);

/**
 * Indexes the key records stored before the expiring-keys index existed, one `SCAN` step per
 * call. KEYS[1] the index, KEYS[2] the marker set when done; ARGV: the cursor, the records'
 * pattern, how many to look at. Answers the next cursor, or 'done' (at once when the marker is
 * there). Every record found with an expiry and no revocation is added; adding one twice changes
 * nothing, so a step may run on several instances at once.
 */
export const indexExpiringKeysScript = luaScript(
  "index-expiring-keys",
  `
if redis.call('EXISTS', KEYS[2]) == 1 then return 'done' end
local step = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', tonumber(ARGV[3]))
for _, record in ipairs(step[2]) do
  if redis.call('TYPE', record).ok == 'hash' then
    local fields = redis.call('HMGET', record, 'id', 'expiresAt', 'revokedAt')
    if fields[1] and fields[2] and not fields[3] then
      redis.call('ZADD', KEYS[1], fields[2], fields[1])
    end
  end
end
if step[1] == '0' then
  redis.call('SET', KEYS[2], '1')
  return 'done'
end
return step[1]
`,
);

/**
 * KEYS[1] the record; ARGV[1] the version the update was computed from ('' for an unconditional
 * update), ARGV[2] how many name/value arguments follow to set, then those, then the fields to
 * delete. The updated record, or nil if the key is missing, revoked or no longer at the expected
 * version (nothing written).
 */
export const updateKeyScript = luaScript(
  "update-key",
  `${nextVersion}
local expectedVersion = ARGV[1]
local setCount = tonumber(ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'revokedAt') == 1 then
  return false
end
local version = redis.call('HGET', KEYS[1], 'version') or '1'
if expectedVersion ~= '' and tonumber(version) ~= tonumber(expectedVersion) then return false end
if setCount > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 3, 2 + setCount)) end
if #ARGV > 2 + setCount then redis.call('HDEL', KEYS[1], unpack(ARGV, 3 + setCount)) end
nextVersion(KEYS[1])
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * KEYS[1] the record; ARGV[1] the limits as JSON, or "" to remove them. The record, or nil if missing.
 */
export const setKeyLimitsScript = luaScript(
  "set-key-limits",
  `${nextVersion}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'limits')
else
  redis.call('HSET', KEYS[1], 'limits', ARGV[1])
end
nextVersion(KEYS[1])
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * `listLive`. KEYS[1] the live keys' index (every id scored 0, so it orders by id, bytewise: code
 * unit order for Keyward's ASCII ids); ARGV: how many, the id to start after ('' for the first
 * page), the record key prefix. Records of keys not revoked, by id; an id whose record is gone or
 * revoked (left by hand) is skipped, never answered.
 */
export const listLiveKeysScript = luaScript(
  "list-live-keys",
  `
local limit = tonumber(ARGV[1])
local min = ARGV[2] == '' and '-' or '(' .. ARGV[2]
local records = {}
while #records < limit do
  local ids = redis.call('ZRANGEBYLEX', KEYS[1], min, '+', 'LIMIT', 0, 100)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    local record = ARGV[3] .. id
    if #records < limit and redis.call('EXISTS', record) == 1 and redis.call('HEXISTS', record, 'revokedAt') == 0 then
      records[#records + 1] = redis.call('HGETALL', record)
    end
  end
  min = '(' .. ids[#ids]
end
return records
`,
);
