/**
 * `RateLimitStore` on Redis: each `consume` is one `EVALSHA` of `lua/consume.ts`, which steps the
 * policy's algorithm on the principal's state and, for an API key, counts the request's usage in
 * the same call. Decisions are taken on Redis's clock (`TIME`), so instances whose clocks disagree
 * still share one limit.
 */
import {
  type RateLimitDecision,
  type RateLimitPolicy,
  type RateLimitStore,
  rateLimitAlgorithms,
  type UsageHit,
  type UsageStore,
} from "@keyward/core";
import type { RedisConnection } from "../client/redis-connection.js";
import type { CallGuard } from "../guard/call-guard.js";
import type { KeyNames } from "../key-names.js";
import { consumeScript } from "../lua/consume.js";
import { dayField, endpointField } from "../usage/usage-fields.js";
import type { UsageBacklog } from "./usage-backlog.js";

/** Whose clock decides: Redis's (`TIME`, the default) or the `now` each caller passes. */
export type TimeSource = "redis" | "caller";

export type StoreErrorPolicy = "fail-closed" | "fail-open";

export interface RedisRateLimitStoreOptions {
  time: TimeSource;
  onStoreError: StoreErrorPolicy;
  /** Limits requests while Redis is unreachable under `"fail-open"`. */
  insurance: RateLimitStore;
}

/** A step's decision and the time (epoch ms, on the clock that decided) it was taken at. */
export interface TimedDecision {
  decision: RateLimitDecision;
  at: number;
}

/** One step on Redis, without failure handling: for the store below and for tests. */
export async function stepOnRedis(
  connection: RedisConnection,
  names: KeyNames,
  bucket: string,
  policy: RateLimitPolicy,
  now: number,
  time: TimeSource,
  usage?: UsageHit,
): Promise<TimedDecision> {
  const keys = [names.rateLimit(bucket)];
  const args = [policy.algorithm, String(policy.limit), String(policy.windowMs), String(now), time];
  if (usage) {
    keys.push(names.usage(usage.keyId));
    args.push(endpointField(usage.method, usage.route), dayField(usage.day));
  }
  const reply = (await connection.run(consumeScript, keys, args)) as number[];
  return {
    decision: {
      allowed: reply[0] === 1,
      limit: policy.limit,
      remaining: Number(reply[1]),
      reset: Number(reply[2]),
      retryAfter: Number(reply[3]),
    },
    at: Number(reply[4]),
  };
}

export function redisRateLimitStore(
  connection: RedisConnection,
  names: KeyNames,
  guard: CallGuard,
  usage: UsageStore,
  backlog: UsageBacklog,
  options: RedisRateLimitStoreOptions,
): RateLimitStore & { readonly recordsUsage: true } {
  const { time, insurance } = options;
  const failOpen = options.onStoreError === "fail-open";

  return {
    recordsUsage: true,

    async consume(bucket, policy, now, hit) {
      if (!Object.hasOwn(rateLimitAlgorithms, policy.algorithm)) {
        throw new TypeError(`Unknown rate-limit algorithm ${JSON.stringify(policy.algorithm)}`);
      }
      // Keyward limits an API key under `key:<id>`, which shares the usage hash's slot; any other
      // pairing would cross slots on a cluster, so its usage is written by a call of its own.
      const together = hit !== undefined && names.keyBucket(hit.keyId) === bucket;
      if (hit && !together) {
        usage
          .record([{ ...hit, count: 1, lastUsedAt: now }])
          .catch(() => backlog.add(hit, now));
      }
      try {
        const { decision } = await guard.run(() =>
          stepOnRedis(connection, names, bucket, policy, now, time, together ? hit : undefined),
        );
        if (backlog.size > 0) void backlog.flush();
        return decision;
      } catch (error) {
        if (together) backlog.add(hit, now);
        if (failOpen) return insurance.consume(bucket, policy, now);
        throw error;
      }
    },
  };
}
