/**
 * Which layers count attempts and which count what was served. Rate limits (the key's own and the
 * owner's shared allowance) protect the service: every request made with a valid key counts, even
 * one refused for a scope it lacks, so probing routes is limited too. Quotas and credits are what
 * the owner pays for: only a request that is served spends them. A request refused for its scopes
 * therefore passes through the rate layers alone.
 */
import type { LimitLayer } from "./types.js";

export function isRateLayer(layer: LimitLayer): boolean {
  return layer.layer === "key" || layer.layer === "owner";
}

// One filtered list per list of layers: plans are built once per key record, and stores cache what
// they derive from a list by its identity (the Redis store's wire format), so the same list must
// come back for the same plan.
const attemptLayers = new WeakMap<readonly LimitLayer[], readonly LimitLayer[]>();

/**
 * The rate layers of `layers` alone: the same array on every call for the same `layers`, and
 * `layers` itself when none is billed (so `rateLayersOf(layers) !== layers` says some layer is).
 */
export function rateLayersOf(layers: readonly LimitLayer[]): readonly LimitLayer[] {
  let rate = attemptLayers.get(layers);
  if (!rate) {
    const filtered = layers.filter(isRateLayer);
    rate = filtered.length === layers.length ? layers : filtered;
    attemptLayers.set(layers, rate);
  }
  return rate;
}
