/**
 * `UsageStore` on Redis. Requests verified through `redisStore().rateLimits` are counted by the
 * rate-limit script itself; `record` is for batches from elsewhere (Keyward's buffered recorder
 * when another store limits, a fail-open backlog, an import).
 */
import type { UsageIncrement, UsageStore } from "@keyward/core";
import type { CallGuard } from "@keyward/core/toolkit";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import { lastUsedScript, readUsageScript, recordUsageScript } from "../lua/usage.js";
import { dayField, endpointField, toKeyUsage } from "./usage-fields.js";

export function redisUsageStore(
  connection: RedisConnection,
  names: KeyNames,
  guard: CallGuard,
): UsageStore {
  const run = (script: typeof readUsageScript, keys: string[], args: string[]) =>
    guard.run(() => connection.run(script, keys, args));

  return {
    async record(increments: readonly UsageIncrement[]) {
      // One script per key: its counters share a slot, different keys may not.
      const byKey = new Map<string, string[]>();
      for (const { keyId, method, route, day, count, lastUsedAt } of increments) {
        let args = byKey.get(keyId);
        if (!args) {
          args = [];
          byKey.set(keyId, args);
        }
        args.push(endpointField(method, route), dayField(day), String(count), String(lastUsedAt));
      }
      await Promise.all(
        [...byKey].map(([keyId, args]) => run(recordUsageScript, [names.usage(keyId)], args)),
      );
    },

    async read(keyId) {
      const flat = (await run(readUsageScript, [names.usage(keyId)], [])) as string[] | null;
      return toKeyUsage(keyId, flat ?? []);
    },

    async lastUsed(keyIds) {
      const found = await Promise.all(
        keyIds.map((keyId) => run(lastUsedScript, [names.usage(keyId)], [])),
      );
      const result = new Map<string, number>();
      keyIds.forEach((keyId, index) => {
        const value = found[index];
        if (value !== null && value !== undefined) result.set(keyId, Number(value));
      });
      return result;
    },
  };
}
