/**
 * `RateLimitStore` in process memory, for one process: state per key in a `Map`, stepped with
 * `stepRateLimit`.
 */
import { type LayerStep, stepLayer } from "../limits/step-layer.js";
import type { LayerDecision, LayeredDecision, LimitLayer } from "../limits/types.js";
import { stepRateLimit } from "../rate-limit/index.js";
import type { RateLimitPolicy, RateLimitState, RateLimitStep } from "../rate-limit/types.js";
import type { LayeredConsume, RateLimitStore } from "../storage/rate-limit-store.js";

export interface MemoryRateLimitStoreOptions {
  /**
   * Most keys held at once. Past it, the least recently used entry is dropped, which hands that
   * key a fresh allowance: set it well above the number of keys active within a window. Default:
   * no cap beyond expiry.
   */
  maxKeys?: number;
}

export interface MemoryRateLimitStore extends RateLimitStore {
  /** Entries currently held, expired ones not yet evicted included. */
  readonly size: number;
  consumeNow: NonNullable<RateLimitStore["consumeNow"]>;
  consumeLayers: NonNullable<RateLimitStore["consumeLayers"]>;
  consumeLayersNow: NonNullable<RateLimitStore["consumeLayersNow"]>;
  readLayers: NonNullable<RateLimitStore["readLayers"]>;
  checkLayers: NonNullable<RateLimitStore["checkLayers"]>;
}

/** A quota's or credits' state: kept apart from rate state, never evicted by `maxKeys`. */
interface AllowanceEntry {
  state: RateLimitState;
  expiresAt: number;
}

interface Entry {
  key: string;
  /** The policy the state belongs to; state written under another policy is not reused. */
  algorithm: RateLimitPolicy["algorithm"];
  limit: number;
  windowMs: number;
  state: RateLimitState;
  expiresAt: number;
}

/**
 * The amortised sweep examines `sweepBatch` entries every `sweepEvery` calls: two per call on
 * average, more than the one entry a call can add. Batching keeps the iterator off most calls.
 */
const sweepEvery = 16;
const sweepBatch = 32;

/**
 * Atomic because each `consume` reads, steps and writes a key's state synchronously, within one
 * turn of the event loop. Memory stays bounded without timers: an expired entry is dropped when
 * its key is next used, and a sweep cursor moves through the map two entries per call on average
 * (32 every 16th call), dropping the expired ones it passes. Each call adds at most one entry and
 * the cursor advances by two, so it laps the whole map within about `size` calls and an expired entry is gone
 * within two laps: keys that stop being used do not pile up.
 *
 * @example
 * const store = memoryRateLimitStore({ maxKeys: 100_000 });
 * const decision = await store.consume(keyId, toPolicy({ limit: 60, window: "1m" }), clock.now());
 */
export function memoryRateLimitStore(
  options: MemoryRateLimitStoreOptions = {},
): MemoryRateLimitStore {
  const { maxKeys = Number.POSITIVE_INFINITY } = options;
  if (!(maxKeys >= 1)) {
    throw new TypeError(`Invalid maxKeys ${String(maxKeys)}: it must be at least 1`);
  }
  const bounded = Number.isFinite(maxKeys);
  // With a cap, insertion order is the eviction order: an entry is re-inserted whenever it is
  // written, so the first entry is the least recently used.
  const entries = new Map<string, Entry>();
  const allowances = new Map<string, AllowanceEntry>();

  // A Map iterator stays valid while the map changes: it skips deleted entries and reaches those
  // appended after it was created, so one cursor walks the map across calls, then starts over.
  let cursor = entries.values();
  let calls = 0;
  const sweep = (now: number) => {
    calls += 1;
    if (calls % sweepEvery !== 0) return;
    // Never more than the map holds: a small map would otherwise be walked round several times
    // per sweep, with a new iterator each time round.
    const batch = Math.min(sweepBatch, entries.size);
    for (let examined = 0; examined < batch; examined++) {
      let next = cursor.next();
      if (next.done) {
        cursor = entries.values();
        next = cursor.next();
        if (next.done) return;
      }
      if (next.value.expiresAt <= now) entries.delete(next.value.key);
    }
  };

  const consumeNow = (key: string, policy: RateLimitPolicy, now: number) => {
    const stored = entries.get(key);
    const step = stepRateLimit(currentState(stored, policy, now), now, policy);
    if (step.expiresAt > now) writeRate(key, policy, step, stored);
    else if (stored) entries.delete(key);
    tidy(now);
    return step.decision;
  };

  return {
    get size() {
      return entries.size;
    },

    async consume(key: string, policy: RateLimitPolicy, now: number) {
      return consumeNow(key, policy, now);
    },

    consumeNow,

    // Synchronous from the first read to the last write: nothing else runs in between, so the
    // layers of one request are one atomic step.
    async consumeLayers(request) {
      return stepAll(request, true);
    },

    consumeLayersNow(request) {
      return stepAll(request, true);
    },

    checkLayers(request) {
      return stepAll(request, false);
    },

    // Counter increments are not applied here: in one process a feature's own write costs no
    // round trip, which is all riding the charge saves (`appliesIncrements` absent: false).

    async readLayers({ layers, now }) {
      return layers.map((layer) => stepLayer(readLayer(layer, now), now, layer, false).decision);
    },
  };

  function currentState(stored: Entry | undefined, policy: RateLimitPolicy, now: number) {
    return stored &&
      stored.expiresAt > now &&
      stored.algorithm === policy.algorithm &&
      stored.limit === policy.limit &&
      stored.windowMs === policy.windowMs
      ? stored.state
      : undefined;
  }

  /**
   * Keeps `step`'s state for `key` (its expiry still ahead: an expired one the caller drops).
   * `stored`: what `entries` holds for `key`, read by the caller within the same step.
   */
  function writeRate(
    key: string,
    policy: RateLimitPolicy,
    step: RateLimitStep,
    stored: Entry | undefined,
  ) {
    const { state, expiresAt } = step;
    if (stored && !bounded) {
      // Updated in place: without a cap, recency order does not matter, and skipping the
      // delete-and-reinsert keeps the hot path to one Map lookup.
      stored.algorithm = policy.algorithm;
      stored.limit = policy.limit;
      stored.windowMs = policy.windowMs;
      stored.state = state;
      stored.expiresAt = expiresAt;
    } else {
      if (stored) entries.delete(key);
      const { algorithm, limit, windowMs } = policy;
      entries.set(key, { key, algorithm, limit, windowMs, state, expiresAt });
    }
  }

  /** After the writes of a step at `now`: a few expired entries swept, the cap kept. */
  function tidy(now: number) {
    sweep(now);
    if (bounded && entries.size > maxKeys) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
  }

  function readLayer(layer: LimitLayer, now: number): RateLimitState | undefined {
    if (layer.layer === "key" || layer.layer === "owner") {
      return currentState(entries.get(layer.bucket), layer.policy, now);
    }
    const stored = allowances.get(layer.bucket);
    return stored && stored.expiresAt > now ? stored.state : undefined;
  }

  function stepAll({ layers, now }: LayeredConsume, write: boolean): LayeredDecision {
    // Loops rather than map/forEach: this runs for every request of a key with layers.
    const count = layers.length;
    const steps = new Array<LayerStep>(count);
    const decisions = new Array<LayerDecision>(count);
    let allowed = true;
    for (let index = 0; index < count; index++) {
      const layer = layers[index]!;
      const step = stepLayer(readLayer(layer, now), now, layer);
      if (!step.decision.allowed) allowed = false;
      steps[index] = step;
      decisions[index] = step.decision;
    }
    // All-or-nothing: a refused request leaves every layer as it was.
    if (write && allowed) {
      for (let index = 0; index < count; index++) {
        const layer = layers[index]!;
        const step = steps[index]!;
        if (layer.layer === "key" || layer.layer === "owner") {
          const stored = entries.get(layer.bucket);
          if (step.expiresAt > now) writeRate(layer.bucket, layer.policy, step, stored);
          else if (stored) entries.delete(layer.bucket);
          tidy(now);
        } else {
          allowances.set(layer.bucket, { state: step.state, expiresAt: step.expiresAt });
        }
      }
    }
    return { allowed, layers: decisions };
  }
}
