/**
 * Where the layers of a request are applied. Usually one store does all of them in one atomic step
 * (memory; Redis in one script). A deployment whose rate limits are per instance but which has an
 * `AllowanceStore` (PostgreSQL beside memory) splits them: rate layers in memory, quotas and credits
 * exactly across instances in the database, still all-or-nothing:
 *
 * 1. the rate layers are checked in memory, changing nothing: refused → nothing was spent;
 * 2. quotas and credits are spent in one database transaction, all or none: refused → stop;
 * 3. the rate layers are consumed in memory. Only a request that raced another on this instance
 *    between 1 and 3 can be refused here; its quota and credits are then refunded.
 */
import type {
  AllowanceStore,
  LayeredConsume,
  LayeredRead,
  RateLimitStore,
} from "../storage/rate-limit-store.js";
import { isRateLayer } from "./attempt-layers.js";
import type { LayerDecision, LayeredDecision, LimitLayer } from "./types.js";

export interface LayeredLimiter {
  consume(request: LayeredConsume): Promise<LayeredDecision>;
  /**
   * `consume`, answered at once: present when every layer is in this process's memory (the memory
   * store, without an `AllowanceStore`), so that verifying such a key spends no promise.
   */
  consumeNow?(request: LayeredConsume): LayeredDecision;
  read(request: LayeredRead): Promise<LayerDecision[]>;
  /** Whether `consume` counted the request's usage itself (else Keyward's recorder does). */
  readonly recordsUsage: boolean;
}

/** Undefined when the rate-limit store cannot apply layers: layered configuration is refused. */
export function layeredLimiter(
  rateLimits: RateLimitStore,
  allowances: AllowanceStore | undefined,
): LayeredLimiter | undefined {
  const { consumeLayers, consumeLayersNow, readLayers, checkLayers } = rateLimits;
  if (!consumeLayers || !readLayers) return undefined;
  if (!allowances || rateLimits.shared || !checkLayers) {
    return {
      recordsUsage: rateLimits.recordsUsage === true,
      consume: (request) => consumeLayers.call(rateLimits, request),
      ...(consumeLayersNow && {
        consumeNow: (request: LayeredConsume) => consumeLayersNow.call(rateLimits, request),
      }),
      read: (request) => readLayers.call(rateLimits, request),
    };
  }

  const split = (layers: readonly LimitLayer[]) => ({
    rate: layers.filter(isRateLayer),
    allowance: layers.filter((layer) => !isRateLayer(layer)),
  });
  /** The decisions of both parts, back in the order of `layers`. */
  const merge = (
    layers: readonly LimitLayer[],
    rate: LayerDecision[],
    allowance: LayerDecision[],
  ): LayeredDecision => {
    let r = 0;
    let a = 0;
    const decisions = layers.map((layer) => (isRateLayer(layer) ? rate[r++]! : allowance[a++]!));
    return { allowed: decisions.every((decision) => decision.allowed), layers: decisions };
  };

  return {
    recordsUsage: false,
    async consume({ owner, layers, now }) {
      const parts = split(layers);
      if (parts.allowance.length === 0) {
        return consumeLayers.call(rateLimits, { owner, layers, now });
      }
      const rateRequest = { owner, layers: parts.rate, now };
      const allowanceRequest = { owner, layers: parts.allowance, now };
      const checked = checkLayers.call(rateLimits, rateRequest);
      if (!checked.allowed) {
        return merge(layers, checked.layers, await allowances.read(allowanceRequest));
      }
      const spent = await allowances.consume(allowanceRequest);
      if (!spent.allowed) return merge(layers, checked.layers, spent.layers);
      const consumed = await consumeLayers.call(rateLimits, rateRequest);
      if (!consumed.allowed) {
        await allowances.refund(allowanceRequest);
        return merge(layers, consumed.layers, await allowances.read(allowanceRequest));
      }
      return merge(layers, consumed.layers, spent.layers);
    },
    async read({ owner, layers, now }) {
      const parts = split(layers);
      const [rate, allowance] = await Promise.all([
        readLayers.call(rateLimits, { owner, layers: parts.rate, now }),
        parts.allowance.length > 0
          ? allowances.read({ owner, layers: parts.allowance, now })
          : Promise.resolve([]),
      ]);
      return merge(layers, rate, allowance).layers;
    },
  };
}
