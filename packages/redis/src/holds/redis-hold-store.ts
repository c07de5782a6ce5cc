/**
 * Holds of `@keyward/core/budgets` in Redis, shared by every instance: each operation is one Lua
 * script, so taking a hold (`take`) is atomic across any number of instances, and a settle racing a
 * release or the TTL sweep on another instance ends it exactly once.
 *
 * | key | holds |
 * |---|---|
 * | `<prefix>{holds}:record` | hold id → the hold as JSON (a hash) |
 * | `<prefix>{holds}:expiry` | hold ids scored by `expiresAt` (a sorted set) |
 * | `<prefix>{holds}:held` | key id → what its holds hold (a hash; holds kept as layers are counted beside their owner's limits instead) |
 *
 * All three carry one hash tag, so on a cluster the scripts run on one node. A hold has no Redis
 * TTL: an expired hold must be given back by the sweep, not forgotten.
 *
 * With the limits on Redis, holds are kept as layers (`layered`): a hold's balance is a layer of
 * its owner's limits (`<prefix>layer:{<owner>}:hold:<id>`), put in by the reservation's limit script
 * and taken out by the settle's, so reserve and settle cost one round trip each. The record is then
 * written first: given the Redis store's own client, it is sent on the same connection ahead of the
 * reservation's script. It is read (not taken) by the sweep and by a settle by id, and removed once
 * the hold ended; the limits' script drops the hold's layer once it is empty.
 */
import type { HoldStore, StoredHold } from "@keyward/core/budgets";
import { StoreUnavailableError, withDeadline } from "@keyward/core/toolkit";
import { redisConnection } from "../client/connect.js";
import { luaScript } from "../client/lua-script.js";
import type { RedisClient } from "../client/redis-client.js";
import type { RedisConnection } from "../client/redis-connection.js";
import { defaultRedisTimeoutMs } from "../default-timeout.js";

const putScript = luaScript(
  "hold-put",
  `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
if ARGV[5] ~= '0' then redis.call('HINCRBY', KEYS[3], ARGV[4], ARGV[5]) end
return 1
`,
);

const takeScript = luaScript(
  "hold-take",
  `
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
local hold = cjson.decode(record)
if not hold.ownLayer and redis.call('HINCRBY', KEYS[3], hold.keyId, -hold.amount) <= 0 then
  redis.call('HDEL', KEYS[3], hold.keyId)
end
return record
`,
);

const readScript = luaScript("hold-read", `return redis.call('HGET', KEYS[1], ARGV[1])`);

const expiredScript = luaScript(
  "hold-expired",
  `return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])`,
);

const heldScript = luaScript("hold-held", `return redis.call('HGET', KEYS[1], ARGV[1])`);

export interface RedisHoldStoreOptions {
  /**
   * The client the store was given: with it, holds are kept as layers and each record is sent
   * ahead of its reservation's script on the same connection (another client works, without
   * that order).
   */
  client: RedisClient;
  /** Prefix of every key, as `redisStore({ prefix })`; default "keyward:". */
  prefix?: string;
  /** Every call's deadline, ms, as `redisStore`'s (default 1,000): a Redis that does not answer fails the call. */
  timeoutMs?: number;
}

export function redisHoldStore({
  client,
  prefix = "keyward:",
  timeoutMs = defaultRedisTimeoutMs,
}: RedisHoldStoreOptions): HoldStore {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError("redisHoldStore: `timeoutMs` must be a number of milliseconds > 0");
  }
  const connection = withinMs(redisConnection(client), timeoutMs);
  const record = `${prefix}{holds}:record`;
  const expiry = `${prefix}{holds}:expiry`;
  const held = `${prefix}{holds}:held`;
  return {
    async put(hold: StoredHold) {
      const written = await connection.run(
        putScript,
        [record, expiry, held],
        // A hold kept as a layer is counted by its steps, not here (`heldBy`).
        [
          hold.id,
          JSON.stringify(hold),
          String(hold.expiresAt),
          hold.keyId,
          String(hold.ownLayer ? 0 : hold.amount),
        ],
      );
      if (Number(written) !== 1) throw new Error(`Keyward: hold ${hold.id} exists already`);
    },
    async take(id) {
      const taken = await connection.run(takeScript, [record, expiry, held], [id]);
      return typeof taken === "string" ? (JSON.parse(taken) as StoredHold) : undefined;
    },
    async expired(now, limit) {
      const ids = await connection.run(expiredScript, [expiry], [String(now), String(limit)]);
      return Array.isArray(ids) ? ids.map(String) : [];
    },
    async heldBy(keyId) {
      const sum = await connection.run(heldScript, [held], [keyId]);
      return sum === null || sum === undefined ? 0 : Number(sum);
    },
    layered: {
      async read(id) {
        const found = await connection.run(readScript, [record], [id]);
        return typeof found === "string" ? (JSON.parse(found) as StoredHold) : undefined;
      },
      async forget(hold) {
        // Taken and dropped: the hold itself is its layer, which the limits' script drops once
        // it is empty.
        await connection.run(takeScript, [record, expiry, held], [hold.id]);
      },
    },
  };
}

/** `connection` with every call under a deadline of `ms`. */
function withinMs(connection: RedisConnection, ms: number): Pick<RedisConnection, "run"> {
  return {
    run: (script, keys, args) =>
      withDeadline(
        connection.run(script, keys, args),
        ms,
        () =>
          new StoreUnavailableError(
            "timeout",
            "Redis",
            `redisHoldStore: no answer from Redis within ${ms} ms`,
          ),
      ),
  };
}
