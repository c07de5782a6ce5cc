/**
 * What a layered decision says to the client: the `X-RateLimit-*` trio of the layer with the fewest
 * requests left (on a refusal, of the layer that refused, with `Retry-After` at its next period or
 * refill), the IETF fields for every layer, and the refusal's error naming the layer.
 */
import { KeywardError } from "../errors/keyward-error.js";
import { rateLimitHeaders } from "../rate-limit/headers.js";
import type { RateLimitPolicy } from "../rate-limit/types.js";
import { periodEnd, periodStart } from "./calendar-period.js";
import type { LayerDecision, LayeredDecision, LimitLayer } from "./types.js";

/** The layer the `X-RateLimit-*` trio describes. */
export function describedLayer(decision: LayeredDecision): number {
  let chosen = -1;
  decision.layers.forEach((layer, index) => {
    const best = chosen === -1 ? undefined : decision.layers[chosen]!;
    if (!decision.allowed) {
      // The refusal that lasts longest: retrying any earlier would be refused again.
      if (layer.allowed) return;
      if (!best || waitOf(layer) > waitOf(best)) chosen = index;
      return;
    }
    // Credits that never refill have no reset to announce; they show only when they refuse.
    if (layer.layer === "credits" && layer.reset === 0) return;
    if (!best || layer.remaining < best.remaining) chosen = index;
  });
  return chosen === -1 ? 0 : chosen;
}

function waitOf(layer: LayerDecision): number {
  return layer.layer === "credits" && layer.reset === 0
    ? Number.POSITIVE_INFINITY
    : layer.retryAfter;
}

export function layeredHeaders(
  decision: LayeredDecision,
  layers: readonly LimitLayer[],
  options: { now: number; ietf: boolean; tier: string },
): Record<string, string> {
  const index = describedLayer(decision);
  const chosen = decision.layers[index]!;
  let headers: Record<string, string>;
  if (chosen.layer === "credits" && chosen.reset === 0) {
    // Nothing will come back by itself: no reset, no Retry-After to promise.
    headers = {
      "X-RateLimit-Limit": String(chosen.limit),
      "X-RateLimit-Remaining": String(chosen.remaining),
    };
  } else {
    headers = rateLimitHeaders(chosen, policyOf(layers[index]!, options.now), { now: options.now });
  }
  if (options.ietf) {
    const policies: string[] = [];
    const states: string[] = [];
    decision.layers.forEach((layerDecision, position) => {
      const layer = layers[position]!;
      const name = layer.layer === "key" ? options.tier : layer.layer;
      const one = rateLimitHeaders(layerDecision, policyOf(layer, options.now), {
        now: options.now,
        ietf: true,
        policyName: name,
      });
      policies.push(one["RateLimit-Policy"]!);
      states.push(one.RateLimit!);
    });
    headers["RateLimit-Policy"] = policies.join(", ");
    headers.RateLimit = states.join(", ");
  }
  return headers;
}

/** A layer as a policy for the header helpers: its limit and its period as the window. */
function policyOf(layer: LimitLayer, now: number): RateLimitPolicy {
  switch (layer.layer) {
    case "key":
    case "owner":
      return layer.policy;
    case "quota":
      return {
        algorithm: "fixed-window",
        limit: layer.limit,
        windowMs: periodEnd(now, layer.period) - periodStart(now, layer.period),
      };
    case "credits": {
      const refill = layer.refill;
      if (!refill) return { algorithm: "fixed-window", limit: layer.remaining, windowMs: 0 };
      const windowMs = periodEnd(now, refill.period) - periodStart(now, refill.period);
      return { algorithm: "fixed-window", limit: refill.amount, windowMs };
    }
  }
}

const refusals = {
  key: ["rate_limited", "Rate limit exceeded"],
  owner: ["rate_limited", "Rate limit shared by all of the owner's API keys exceeded"],
  credits: ["credits_exhausted", "API key has no credits left"],
} as const;

/** The 429 for a refusal, its `detail` naming the layer (the per-key one's is the contract's). */
export function layerRefusal(
  decision: LayeredDecision,
  layers: readonly LimitLayer[],
  headers: Record<string, string>,
): KeywardError {
  const index = describedLayer(decision);
  const layer = layers[index]!;
  if (layer.layer === "quota") {
    const period = { day: "Daily", week: "Weekly", month: "Monthly" }[layer.period];
    return new KeywardError("quota_exceeded", `${period} quota exceeded`, { headers });
  }
  const [code, detail] = refusals[layer.layer];
  const error = new KeywardError(code, detail, { headers });
  if (layer.layer === "owner") ownerRefusals.add(error);
  return error;
}

/** The owner-shared allowance's 429s, told apart from the key's own (same code) for observers. */
const ownerRefusals = new WeakSet<object>();

/** Whether a `rate_limited` error is the owner-shared allowance's refusal (else the key's own). */
export function isOwnerRefusal(error: object): boolean {
  return ownerRefusals.has(error);
}
