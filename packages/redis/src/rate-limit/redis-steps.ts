/**
 * One script call for a batch of rate-limit steps (see `lua/consume.ts`): the arguments it takes
 * and the decisions it returns.
 */
import type { RateLimitDecision, RateLimitPolicy, UsageHit } from "@keyward/core";
import { isLaterUse, parseBucket } from "@keyward/core/toolkit";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import { consumeScript } from "../lua/consume.js";
import { useRecord } from "../lua/later-use.js";
import { dayField, endpointField } from "../usage/usage-fields.js";

/** Whose clock decides: Redis's (`TIME`, the default) or the `now` each caller passes. */
export type TimeSource = "redis" | "caller";

/** One request: its caller's time, and its usage when it is counted with the step. */
export interface StepRequest {
  now: number;
  usage?: UsageHit | undefined;
}

/**
 * Requests for one principal under one policy. Only an API key's bucket (`key:<id>`) carries usage,
 * and only that key's: the state and the usage are in one hash.
 */
export interface StepGroup {
  bucket: string;
  policy: RateLimitPolicy;
  requests: readonly StepRequest[];
}

/** A step's decision, and the time (epoch ms, on the clock that decided) of the call's last step. */
export interface TimedDecision {
  decision: RateLimitDecision;
  at: number;
}

/**
 * Steps every group's requests in order and counts their usage, in one atomic call. On a cluster
 * all groups of one call must hash to one slot. Resolves with one list of decisions per group.
 */
export async function stepsOnRedis(
  connection: RedisConnection,
  names: KeyNames,
  groups: readonly StepGroup[],
  time: TimeSource,
): Promise<TimedDecision[][]> {
  const keys: string[] = [];
  const headers: string[] = [];
  /** Usage hash fields named in this call → their 1-based index in the call's field list. */
  const fieldIndex = new Map<string, number>();
  /** Policies named in this call, likewise. */
  const policyIndex = new Map<string, number>();
  const indexIn = (table: Map<string, number>, name: string) => {
    let index = table.get(name);
    if (index === undefined) {
      index = table.size + 1;
      table.set(name, index);
    }
    return index;
  };
  for (const { bucket, policy, requests } of groups) {
    // An API key's state lives in its usage hash (one key, one slot), anything else's on its own.
    const owner = parseBucket(bucket);
    const keyId = owner?.kind === "key" ? owner.keyId : undefined;
    keys.push(keyId === undefined ? names.rateLimit(bucket) : names.usage(keyId));
    let counts: Map<number, number> | undefined;
    let lastUsedAt = Number.NEGATIVE_INFINITY;
    // The latest use fields among the requests (`UsageHit.useFields`).
    let useFieldsAt: number | undefined;
    let useFields: string | undefined;
    for (const { now, usage } of requests) {
      if (!usage) continue;
      if (usage.keyId !== keyId) {
        throw new TypeError(`Usage of key ${usage.keyId} cannot be counted with bucket ${bucket}`);
      }
      counts ??= new Map();
      const endpoint = indexIn(fieldIndex, endpointField(usage.method, usage.route));
      const day = indexIn(fieldIndex, dayField(usage.day));
      counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
      counts.set(day, (counts.get(day) ?? 0) + 1);
      if (now > lastUsedAt) lastUsedAt = now;
      if (
        usage.useFields !== undefined &&
        isLaterUse(now, usage.useFields, useFieldsAt, useFields)
      ) {
        useFieldsAt = now;
        useFields = usage.useFields;
      }
    }
    const policyName = `${policy.algorithm}:${policy.limit}:${policy.windowMs}`;
    // "use": an API key whose usage carries use fields, sent as the next argument.
    const where = keyId === undefined ? "own" : useFields === undefined ? "key" : "use";
    let header = `${indexIn(policyIndex, policyName)} ${requests.length} ${where} ${counts ? lastUsedAt : "-"}`;
    if (counts) for (const [index, count] of counts) header += ` ${index}:${count}`;
    headers.push(header);
    if (useFields !== undefined) headers.push(useRecord(useFieldsAt!, useFields));
    if (time === "caller") for (const { now } of requests) headers.push(String(now));
  }
  const args = [
    time,
    String(fieldIndex.size),
    ...fieldIndex.keys(),
    String(policyIndex.size),
    ...policyIndex.keys(),
    ...headers,
  ];

  const reply = (await connection.run(consumeScript, keys, args)) as number[];
  const at = Number(reply[reply.length - 1]);
  let offset = 0;
  return groups.map(({ policy, requests }) =>
    requests.map(() => {
      const decision: RateLimitDecision = {
        allowed: reply[offset] === 1,
        limit: policy.limit,
        remaining: Number(reply[offset + 1]),
        reset: Number(reply[offset + 2]),
        retryAfter: Number(reply[offset + 3]),
      };
      offset += 4;
      return { decision, at };
    }),
  );
}
