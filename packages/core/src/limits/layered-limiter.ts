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
 *
 * A shared store (Redis) beside an `AllowanceStore` that keeps credit balances (PostgreSQL) keeps
 * every layer in one step on the shared store, and the credits' durable balance in the other
 * (`durable-credits.ts`).
 */
import type {
  AllowanceStore,
  LayeredConsume,
  LayeredRead,
  RateLimitStore,
} from "../storage/rate-limit-store.js";
import { isRateLayer } from "./attempt-layers.js";
import { type CreditCheckpoints, creditCheckpoints } from "./durable-credits.js";
import { startsFromNothing } from "./transient-credits.js";
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
  /**
   * Whether `consume` applies a request's `increments` in its atomic step, admitted only
   * (`counter-increments.ts`); false: they are dropped, and a feature counts its own way.
   */
  readonly appliesIncrements: boolean;
  /** An owner's counter as `increments` left it; present with `appliesIncrements`. */
  readCounter?(owner: string, counter: string, now: number): Promise<Record<string, number>>;
  /** Saves what is pending (durable credits); present when there is anything to save. */
  close?(): Promise<void>;
}

export interface LayeredLimiterOptions {
  /** How often credit states seen on a shared store are saved to the durable balance (ms). */
  creditSaveIntervalMs?: number;
  /** Told when saving credit states failed (they are kept for the next save). */
  onCreditSaveError?(error: unknown): void;
}

/** What a Redis loss may give back at most: the credits spent in one second. */
const defaultCreditSaveIntervalMs = 1_000;

/** Undefined when the rate-limit store cannot apply layers: layered configuration is refused. */
export function layeredLimiter(
  rateLimits: RateLimitStore,
  allowances: AllowanceStore | undefined,
  options: LayeredLimiterOptions = {},
): LayeredLimiter | undefined {
  const { consumeLayers, consumeLayersNow, readLayers, checkLayers } = rateLimits;
  if (!consumeLayers || !readLayers) return undefined;
  if (rateLimits.shared && allowances?.loadCredits && allowances.saveCredits) {
    return durableCreditsLimiter(rateLimits, allowances, options);
  }
  if (!allowances || rateLimits.shared || !checkLayers) {
    return {
      recordsUsage: rateLimits.recordsUsage === true,
      ...counterParts(rateLimits),
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

  // Split in two steps (memory, then the database): increments have no one step to ride.
  return {
    recordsUsage: false,
    appliesIncrements: false,
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

/** Whether the store applies increments, and how they are read back. */
function counterParts(
  rateLimits: RateLimitStore,
): Pick<LayeredLimiter, "appliesIncrements" | "readCounter"> {
  const { readCounter } = rateLimits;
  if (rateLimits.appliesIncrements !== true || !readCounter) return { appliesIncrements: false };
  return { appliesIncrements: true, readCounter: readCounter.bind(rateLimits) };
}

/** Tries a request gets to find its credits seeded before it is answered 500. */
const seedAttempts = 3;

/**
 * Every layer on the shared store, in one step, asked with `durableCredits`: a credits state it
 * has lost is seeded from the durable balance, and each admitted request's credits are written back.
 */
function durableCreditsLimiter(
  rateLimits: RateLimitStore,
  allowances: AllowanceStore,
  options: LayeredLimiterOptions,
): LayeredLimiter {
  const consumeLayers = rateLimits.consumeLayers!.bind(rateLimits);
  const readLayers = rateLimits.readLayers!.bind(rateLimits);
  const { seedCredits } = rateLimits;
  const loadCredits = allowances.loadCredits!.bind(allowances);
  const saveCredits = allowances.saveCredits!.bind(allowances);
  if (!seedCredits) {
    throw new TypeError(
      "Keyward: the allowance store keeps durable credit balances, but the shared rate-limit store cannot be seeded from them (`seedCredits`)",
    );
  }
  const checkpoints: CreditCheckpoints = creditCheckpoints({
    save: saveCredits,
    intervalMs: options.creditSaveIntervalMs ?? defaultCreditSaveIntervalMs,
    onError: options.onCreditSaveError ?? (() => {}),
  });
  // Credits that start from nothing have no durable balance (`transient-credits.ts`).
  const durable = (layer: LimitLayer) => layer.layer === "credits" && !startsFromNothing(layer);
  const hasCredits = (layers: readonly LimitLayer[]) => layers.some(durable);

  /** Loads the durable balance of the request's credits and writes it where the store has none. */
  const seed = async ({ owner, layers }: LayeredRead) => {
    const buckets = layers.flatMap((layer) => (durable(layer) ? [layer.bucket] : []));
    const states = await loadCredits(buckets);
    await seedCredits.call(
      rateLimits,
      owner,
      buckets.map((bucket) => ({ bucket, state: states.get(bucket) })),
    );
  };

  /** Asks until the credits are seeded: a lost state is seeded once, then decided as usual. */
  const untilSeeded = async <T>(
    request: LayeredConsume,
    ask: (request: LayeredConsume) => Promise<T>,
    unseeded: (answer: T) => boolean,
  ): Promise<T> => {
    let answer = await ask(request);
    for (let attempt = 1; unseeded(answer); attempt++) {
      if (attempt === seedAttempts) {
        throw new Error(
          `Keyward: the credits of owner ${JSON.stringify(request.owner)} were lost again each time they were seeded`,
        );
      }
      await seed(request);
      // The first call counted the request's usage already.
      answer = await ask({ ...request, usage: undefined });
    }
    return answer;
  };

  return {
    recordsUsage: rateLimits.recordsUsage === true,
    ...counterParts(rateLimits),
    async consume(request) {
      if (!hasCredits(request.layers)) return consumeLayers(request);
      const decision = await untilSeeded(
        { ...request, durableCredits: true },
        consumeLayers,
        (answer) => answer.unseeded === true,
      );
      if (decision.allowed) checkpoints.note(request.layers, decision.layers);
      return decision;
    },
    async read(request) {
      if (!hasCredits(request.layers)) return readLayers(request);
      return untilSeeded({ ...request, durableCredits: true }, readLayers, (layers) =>
        layers.some((layer) => layer.unseeded === true),
      );
    },
    close: () => checkpoints.close(),
  };
}
