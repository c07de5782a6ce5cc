/**
 * The scripts of imported keys (`importKeys`, `rehash`). Like every key script, they touch only
 * keys with the `{keys}` hash tag, so each is atomic on a single server and on a cluster alike.
 */
import { luaScript } from "../client/lua-script.js";

/**
 * `importKeys`: a batch of records, all or nothing. KEYS: per record its record, hash index, owner
 * set and owner listing index (four each, in the records' order), then the expiring-keys index
 * and the live keys' index.
 * ARGV[1] how many records; then per record its id, how many field/value items follow, and them.
 * A record whose id is stored is skipped (an import run twice changes nothing); one whose hash
 * another id holds stops the script before anything is written. Returns `{ 0, <record number> }`
 * for that conflict, else `{ 1, <created id>... }`.
 */
export const importKeysScript = luaScript(
  "import-keys",
  `
local count = tonumber(ARGV[1])
local expiring, live = KEYS[count * 4 + 1], KEYS[count * 4 + 2]
local records = {}
local at = 2
for i = 1, count do
  local items = tonumber(ARGV[at + 1])
  records[i] = { id = ARGV[at], first = at + 2, last = at + 1 + items }
  at = at + 2 + items
end
-- Every check before any write: a refused batch leaves nothing behind.
for i = 1, count do
  local base = (i - 1) * 4
  if redis.call('EXISTS', KEYS[base + 1]) == 0 then
    local holder = redis.call('GET', KEYS[base + 2])
    if holder and holder ~= records[i].id then return { 0, i } end
  end
end
local created = { 1 }
for i = 1, count do
  local base = (i - 1) * 4
  local record, id = KEYS[base + 1], records[i].id
  if redis.call('EXISTS', record) == 0 then
    redis.call('HSET', record, unpack(ARGV, records[i].first, records[i].last))
    redis.call('SET', KEYS[base + 2], id)
    redis.call('SADD', KEYS[base + 3], id)
    local fields = redis.call('HMGET', record, 'expiresAt', 'revokedAt', 'createdAt')
    if fields[1] and not fields[2] then redis.call('ZADD', expiring, fields[1], id) end
    if not fields[2] then redis.call('ZADD', live, 0, id) end
    redis.call('ZADD', KEYS[base + 4], fields[3], id)
    created[#created + 1] = id
  end
end
return created
`,
);

/**
 * `rehash`: KEYS the record, the index of the hash it has now, the index of the new one; ARGV the
 * id, the expected current hash, the new hash. Returns the record's fields, false when the record
 * is missing or its hash is no longer the expected one, 1 when the new hash belongs to a key.
 */
export const rehashKeyScript = luaScript(
  "rehash-key",
  `
local id, from, to = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HGET', KEYS[1], 'secretHash') ~= from then return false end
if redis.call('EXISTS', KEYS[3]) == 1 then return 1 end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[3], id)
redis.call('HSET', KEYS[1], 'secretHash', to)
return redis.call('HGETALL', KEYS[1])
`,
);
