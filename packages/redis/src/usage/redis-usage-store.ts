/**
 * `UsageStore` on Redis. Requests verified through `redisStore().rateLimits` are counted by the
 * rate-limit script itself; `record` is for batches from elsewhere (Keyward's buffered recorder
 * when another store limits, a fail-open backlog, an import).
 */
import type { LastUse, UsageIncrement, UsageStore } from "@keyward/core";
import { type CallGuard, isLaterUse, useFieldsTimeOf } from "@keyward/core/toolkit";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import { useRecord } from "../lua/later-use.js";
import {
  lastUsedScript,
  pruneUsageScript,
  readUsageScript,
  recordUsageScript,
  scanUsageScript,
} from "../lua/usage.js";
import { dayField, endpointField, toKeyUsage, useFieldsOfRecord } from "./usage-fields.js";

/** Keys `SCAN` looks at per call while pruning (a hint to Redis, not an exact page size). */
const pruneScanCount = 500;
const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

/** `text` matched literally by a `SCAN MATCH` glob. */
const globLiteral = (text: string) => text.replace(/[*?[\]\\]/g, "\\$&");

export function redisUsageStore(
  connection: RedisConnection,
  names: KeyNames,
  guard: CallGuard,
): UsageStore {
  const run = (script: typeof readUsageScript, keys: string[], args: string[]) =>
    guard.run(() => connection.run(script, keys, args), script.name);

  return {
    async record(increments: readonly UsageIncrement[]) {
      // One script per key: its counters share a slot, different keys may not. The first
      // argument is the key's latest use fields in the batch (the script keeps them if later).
      const byKey = new Map<string, { args: string[]; at?: number; useFields?: string }>();
      for (const increment of increments) {
        const { keyId, method, route, day, count, lastUsedAt, useFields } = increment;
        let batch = byKey.get(keyId);
        if (!batch) {
          batch = { args: [""] };
          byKey.set(keyId, batch);
        }
        batch.args.push(
          endpointField(method, route),
          dayField(day),
          String(count),
          String(lastUsedAt),
        );
        if (useFields !== undefined) {
          const at = useFieldsTimeOf(increment);
          if (isLaterUse(at, useFields, batch.at, batch.useFields)) {
            batch.at = at;
            batch.useFields = useFields;
            batch.args[0] = useRecord(at, useFields);
          }
        }
      }
      await Promise.all(
        [...byKey].map(([keyId, { args }]) => run(recordUsageScript, [names.usage(keyId)], args)),
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
      const result = new Map<string, LastUse>();
      keyIds.forEach((keyId, index) => {
        const [last, record] = (found[index] as (string | null)[] | null) ?? [];
        if (last === null || last === undefined) return;
        const at = Number(last);
        const useFields = useFieldsOfRecord(record);
        result.set(keyId, useFields === undefined ? { at } : { at, useFields });
      });
      return result;
    },

    // Pages of SCAN, then one atomic fold per usage hash found: every call is short, so the hot
    // path's scripts interleave with pruning. Another instance pruning the same hash finds its
    // old days gone and folds nothing twice.
    async prune(beforeDay) {
      if (!dayPattern.test(beforeDay)) {
        throw new TypeError(`usage prune day must be YYYY-MM-DD, got ${beforeDay}`);
      }
      if (connection.cluster) {
        throw new TypeError(
          "@keyward/redis: usage retention cannot prune on a Redis Cluster yet (SCAN covers one node); leave `usage.retainDays` unset there",
        );
      }
      const pattern = `${globLiteral(names.usage("").slice(0, -1))}*}`;
      const keep = dayField(beforeDay);
      let cursor = "0";
      let pruned = 0;
      do {
        const [next, keys] = (await run(
          scanUsageScript,
          [],
          [cursor, pattern, String(pruneScanCount)],
        )) as [string, string[]];
        cursor = String(next);
        const removed = await Promise.all(keys.map((key) => run(pruneUsageScript, [key], [keep])));
        for (const count of removed) pruned += Number(count);
      } while (cursor !== "0");
      return pruned;
    },
  };
}
