/**
 * One script call for all layers of one request (`lua/consume-layers.ts`): the arguments it takes
 * and the decisions it returns.
 */
import type {
  LayerDecision,
  LayeredDecision,
  LayeredRead,
  LimitLayer,
  UsageHit,
} from "@keyward/core";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import { consumeLayersScript } from "../lua/consume-layers.js";
import { dayField, endpointField } from "../usage/usage-fields.js";
import type { TimeSource } from "./redis-steps.js";

function specOf(layer: LimitLayer): string {
  switch (layer.layer) {
    case "key":
    case "owner": {
      const { algorithm, limit, windowMs } = layer.policy;
      return `r ${algorithm}:${limit}:${windowMs}`;
    }
    case "quota":
      return `q ${layer.limit} ${layer.period}`;
    case "credits": {
      const base = `c ${layer.cost} ${layer.remaining} ${layer.grantedAt}`;
      return layer.refill ? `${base} ${layer.refill.amount} ${layer.refill.period}` : base;
    }
  }
}

function limitOf(layer: LimitLayer): number {
  switch (layer.layer) {
    case "key":
    case "owner":
      return layer.policy.limit;
    case "quota":
      return layer.limit;
    case "credits":
      return layer.refill ? layer.refill.amount : layer.remaining;
  }
}

/** One request's layers, and its usage when the key's usage hash may share the call. */
export interface LayerRequest extends LayeredRead {
  usage?: UsageHit | undefined;
}

/**
 * Steps the requests one after another in one atomic call (all on one slot on a cluster: one
 * owner's, without usage). Resolves with one decision per request, in order.
 */
export async function layersOnRedis(
  connection: RedisConnection,
  names: KeyNames,
  time: TimeSource,
  mode: "consume" | "read",
  requests: readonly LayerRequest[],
): Promise<LayeredDecision[]> {
  const keys: string[] = [];
  const args = [time, mode, String(requests.length)];
  for (const { owner, layers, now, usage } of requests) {
    args.push(`${Math.round(now)} ${layers.length} ${usage ? 2 : 0}`);
    for (const layer of layers) {
      keys.push(names.layer(owner, layer.bucket));
      args.push(specOf(layer));
    }
    if (usage) {
      keys.push(names.usage(usage.keyId));
      args.push(endpointField(usage.method, usage.route), dayField(usage.day));
    }
  }
  const reply = (await connection.run(consumeLayersScript, keys, args)) as number[];
  let offset = 0;
  return requests.map(({ layers }) => {
    const decisions: LayerDecision[] = layers.map((layer) => {
      const decision: LayerDecision = {
        layer: layer.layer,
        allowed: reply[offset] === 1,
        limit: limitOf(layer),
        remaining: Number(reply[offset + 1]),
        reset: Number(reply[offset + 2]),
        retryAfter: Number(reply[offset + 3]),
      };
      offset += 4;
      return decision;
    });
    const allowed = reply[offset] === 1;
    offset += 1;
    return { allowed, layers: decisions };
  });
}
