/**
 * Counter increments (`CounterIncrement` in `@keyward/core`) of requests that the fail-open policy
 * admitted while Redis did not answer: they were served, so what they add to a feature's counters
 * (metering's ledger) is held here, summed per counter and field, and written once Redis answers
 * again, as `usage-backlog.ts` holds their usage. Bounded: past `maxEntries` distinct fields, more
 * are dropped (a call that timed out may also have landed: counted twice, never lost).
 *
 * And the script that reads a counter back.
 */
import type { CounterIncrement } from "@keyward/core";
import { luaScript } from "../client/lua-script.js";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";

/** KEYS[1] a counter's hash: its fields and values, flat. */
export const readCounterScript = luaScript("read-counter", "return redis.call('HGETALL', KEYS[1])");

/** KEYS[1] a counter; ARGV pairs of field and amount, then the expiry (epoch ms) or "-". */
const addCounterScript = luaScript(
  "add-counter",
  `
for i = 1, #ARGV - 1, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
if ARGV[#ARGV] ~= '-' then redis.call('PEXPIREAT', KEYS[1], ARGV[#ARGV]) end
return 1
`,
);

const maxEntries = 10_000;

export function counterIncrementBacklog(connection: RedisConnection, names: KeyNames) {
  /** By counter key: fields and amounts, and the latest expiry asked for. */
  let held = new Map<string, { fields: Map<string, number>; expireAt?: number }>();
  let entries = 0;
  let flushing: Promise<void> | undefined;

  const add = (key: string, field: string, by: number, expireAt: number | undefined) => {
    let counter = held.get(key);
    if (counter === undefined) {
      counter = { fields: new Map() };
      held.set(key, counter);
    }
    if (!counter.fields.has(field)) {
      if (entries >= maxEntries) return false;
      entries += 1;
    }
    counter.fields.set(field, (counter.fields.get(field) ?? 0) + by);
    if (expireAt !== undefined && (counter.expireAt ?? 0) < expireAt) counter.expireAt = expireAt;
    return true;
  };

  const write = async () => {
    const batch = held;
    held = new Map();
    entries = 0;
    for (const [key, { fields, expireAt }] of batch) {
      const args = [...fields].flatMap(([field, by]) => [field, String(by)]);
      try {
        await connection.run(
          addCounterScript,
          [key],
          [...args, expireAt === undefined ? "-" : String(expireAt)],
        );
      } catch {
        // Still down: kept for the next attempt.
        for (const [field, by] of fields) add(key, field, by, expireAt);
      }
    }
  };

  return {
    get size() {
      return held.size;
    },
    /** False for each increment dropped past the bound. */
    add(owner: string, increments: readonly CounterIncrement[]) {
      for (const { counter, field, by, expireAt } of increments) {
        add(names.counter(owner, counter), field, by, expireAt);
      }
    },
    flush(): Promise<void> {
      if (held.size === 0) return flushing ?? Promise.resolve();
      flushing ??= write().finally(() => {
        flushing = undefined;
      });
      return flushing;
    },
  };
}
