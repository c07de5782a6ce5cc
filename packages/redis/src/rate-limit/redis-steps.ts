/**
 * One script call for a batch of requests to one principal (see `lua/consume.ts`): the arguments
 * it takes and the decisions it returns.
 */
import type { RateLimitDecision, RateLimitPolicy, UsageHit } from "@keyward/core";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import { consumeScript } from "../lua/consume.js";
import { dayField, endpointField } from "../usage/usage-fields.js";

/** Whose clock decides: Redis's (`TIME`, the default) or the `now` each caller passes. */
export type TimeSource = "redis" | "caller";

/** One request in a batch: its caller's time, and its usage when it is counted with the step. */
export interface StepRequest {
  now: number;
  usage?: UsageHit | undefined;
}

/** A step's decision and the time (epoch ms, on the clock that decided) of the batch's last step. */
export interface TimedDecision {
  decision: RateLimitDecision;
  at: number;
}

/**
 * Steps `requests` in order on `bucket`'s state and counts their usage, in one atomic call. Every
 * request carrying usage must belong to the API key whose bucket this is (same hash tag).
 */
export async function stepsOnRedis(
  connection: RedisConnection,
  names: KeyNames,
  bucket: string,
  policy: RateLimitPolicy,
  requests: readonly StepRequest[],
  time: TimeSource,
): Promise<TimedDecision[]> {
  const keys = [names.rateLimit(bucket)];
  const args = [policy.algorithm, String(policy.limit), String(policy.windowMs), time];
  args.push(String(requests.length), "");
  if (time === "caller") for (const request of requests) args.push(String(request.now));

  let counts: Map<string, number> | undefined;
  let lastUsedAt = Number.NEGATIVE_INFINITY;
  let keyId: string | undefined;
  for (const { now, usage } of requests) {
    if (!usage) continue;
    keyId ??= usage.keyId;
    counts ??= new Map();
    for (const field of [endpointField(usage.method, usage.route), dayField(usage.day)]) {
      counts.set(field, (counts.get(field) ?? 0) + 1);
    }
    if (now > lastUsedAt) lastUsedAt = now;
  }
  if (counts && keyId !== undefined) {
    keys.push(names.usage(keyId));
    args[5] = String(lastUsedAt);
    for (const [field, count] of counts) args.push(field, String(count));
  }

  const reply = (await connection.run(consumeScript, keys, args)) as number[];
  const at = Number(reply[reply.length - 1]);
  return requests.map((_, index) => {
    const offset = index * 4;
    return {
      decision: {
        allowed: reply[offset] === 1,
        limit: policy.limit,
        remaining: Number(reply[offset + 1]),
        reset: Number(reply[offset + 2]),
        retryAfter: Number(reply[offset + 3]),
      },
      at,
    };
  });
}
