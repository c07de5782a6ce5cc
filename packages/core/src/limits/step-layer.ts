/**
 * One layer's step, pure: (state, now, layer) → next state and decision, as `stepRateLimit` is for
 * one rate limit. Every store applies these, all layers of a request at once (`stepLayers`); the
 * Redis script transcribes them.
 *
 * States are small tuples of numbers:
 * - rate layers: the algorithm's own state;
 * - quota: `[periodStart, count]`;
 * - credits: `[grantedAt, balance, refillPeriodStart]` (the last is 0 without a refill).
 */
import { stepRateLimit } from "../rate-limit/index.js";
import type { RateLimitState } from "../rate-limit/types.js";
import { periodEnd, periodStart } from "./calendar-period.js";
import type { LayerDecision, LimitLayer } from "./types.js";

export interface LayerStep {
  state: RateLimitState;
  decision: LayerDecision;
  /** Epoch ms after which the state can be dropped; `Infinity` for credits, which never expire. */
  expiresAt: number;
}

/**
 * @param consume false to only read where the layer stands (`remaining` then counts this request
 *   as not made): for usage reports.
 */
export function stepLayer(
  state: RateLimitState | undefined,
  now: number,
  layer: LimitLayer,
  consume = true,
): LayerStep {
  switch (layer.layer) {
    case "key":
    case "owner": {
      const step = stepRateLimit(state, now, layer.policy);
      const { allowed, limit, reset, retryAfter } = step.decision;
      // A read is the step of one request, not kept: what it would have left, plus that request.
      const remaining = !consume && allowed ? step.decision.remaining + 1 : step.decision.remaining;
      // Written out rather than spread: this runs for every layer of every request.
      return {
        state: step.state,
        decision: { layer: layer.layer, allowed, limit, remaining, reset, retryAfter },
        expiresAt: step.expiresAt,
      };
    }
    case "quota": {
      const start = periodStart(now, layer.period);
      const end = periodEnd(now, layer.period);
      // A state from a later period (another instance's clock ahead of ours) is the current one:
      // falling back to our period would reset the count.
      const current = state !== undefined && state[0]! >= start;
      const from = current ? state[0]! : start;
      const until = current && from > start ? periodEnd(from, layer.period) : end;
      const count = current ? state[1]! : 0;
      const allowed = consume ? count + 1 <= layer.limit : count < layer.limit;
      const next = consume && allowed ? count + 1 : count;
      return {
        state: [from, next],
        decision: {
          layer: "quota",
          allowed,
          limit: layer.limit,
          remaining: Math.max(0, layer.limit - next),
          reset: until,
          retryAfter: allowed ? 0 : until - now,
        },
        expiresAt: until,
      };
    }
    case "credits": {
      const refill = layer.refill;
      const start = refill ? periodStart(now, refill.period) : 0;
      let balance = layer.remaining;
      let refilledAt = start;
      if (state !== undefined && state[0] === layer.grantedAt) {
        balance = state[1]!;
        refilledAt = state[2]!;
        // A new period refills, once: the balance is set back to the refill amount.
        if (refill && start > refilledAt) {
          balance = refill.amount;
          refilledAt = start;
        }
      }
      const cost = consume ? layer.cost : 0;
      const allowed = balance >= cost && (consume || balance > 0);
      const left = consume && allowed ? balance - cost : balance;
      const reset = refill ? periodEnd(Math.max(now, refilledAt), refill.period) : 0;
      return {
        state: [layer.grantedAt, left, refilledAt],
        decision: {
          layer: "credits",
          allowed,
          limit: refill ? refill.amount : layer.remaining,
          remaining: left,
          reset,
          retryAfter: allowed || !refill ? 0 : reset - now,
        },
        expiresAt: Number.POSITIVE_INFINITY,
      };
    }
  }
}

/**
 * Every layer of one request, all-or-nothing: the steps are taken on the states given, and the
 * next states are returned only if every layer admits the request (`states` undefined otherwise,
 * and nothing must be written).
 */
export function stepLayers(
  states: readonly (RateLimitState | undefined)[],
  now: number,
  layers: readonly LimitLayer[],
): { allowed: boolean; steps: LayerStep[] } {
  let allowed = true;
  const steps = layers.map((layer, index) => {
    const step = stepLayer(states[index], now, layer);
    if (!step.decision.allowed) allowed = false;
    return step;
  });
  return { allowed, steps };
}
