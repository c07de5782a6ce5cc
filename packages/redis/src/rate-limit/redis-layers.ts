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

/**
 * @param usage counted in the same call when given: the caller passes it only where the key's usage
 *   hash may share the call (not on a cluster, where it lives in another slot).
 */
export async function layersOnRedis(
  connection: RedisConnection,
  names: KeyNames,
  time: TimeSource,
  mode: "consume" | "read",
  { owner, layers, now }: LayeredRead,
  usage?: UsageHit,
): Promise<LayeredDecision> {
  const keys = layers.map((layer) => names.layer(owner, layer.bucket));
  const args = [time, String(now), mode, String(layers.length), ...layers.map(specOf)];
  if (usage) {
    keys.push(names.usage(usage.keyId));
    args.push(String(now), endpointField(usage.method, usage.route), dayField(usage.day));
  }
  const reply = (await connection.run(consumeLayersScript, keys, args)) as number[];
  const decisions: LayerDecision[] = layers.map((layer, index) => ({
    layer: layer.layer,
    allowed: reply[index * 4] === 1,
    limit: limitOf(layer),
    remaining: Number(reply[index * 4 + 1]),
    reset: Number(reply[index * 4 + 2]),
    retryAfter: Number(reply[index * 4 + 3]),
  }));
  return { allowed: reply[layers.length * 4] === 1, layers: decisions };
}
