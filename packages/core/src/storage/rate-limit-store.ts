import type { CounterIncrement } from "../limits/counter-increments.js";
import type { LayerDecision, LayeredDecision, LimitLayer } from "../limits/types.js";
import type { RateLimitDecision, RateLimitPolicy } from "../rate-limit/types.js";
import type { UsageStore } from "./usage-store.js";

/** One request's usage, for a store that records it together with the rate-limit step. */
export interface UsageHit {
  keyId: string;
  method: string;
  route: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /**
   * The fields the request writes (`UsageIncrement.useFields`, `keys/use-fields.ts`), recorded
   * with its use; absent when it writes none.
   */
  useFields?: string;
}

/**
 * Persistence for rate-limit state.
 *
 * Contract:
 * - `consume` is one atomic step of the policy's algorithm for `key`: reading the state, deciding,
 *   and writing the new state happen with no other step for the same key in between. Memory stores
 *   do it synchronously; Redis does it in one Lua script.
 * - `now` is the caller's clock in epoch ms. A store with an authoritative clock of its own (Redis
 *   `TIME`) may use that instead, so that instances with skewed clocks agree.
 * - State for a key may be dropped once the algorithm says it can no longer affect a decision
 *   (`RateLimitStep.expiresAt`); a store must not keep expired state forever.
 * - A store that sets `recordsUsage` counts `usage` (one request, allowed or not) in the same
 *   atomic call, so a verified request costs one round trip; Keyward then does not buffer that
 *   request's usage itself. Other stores ignore `usage`.
 * - A store that can tell, at its limit step, that the key record a request was verified with has
 *   changed since (a cache other instances' changes do not reach) spends nothing and rejects
 *   `consume` / `consumeLayers` with a `KeyChangedError` carrying the current record: `verify`
 *   checks and charges the request once more with it (`storage/key-changed-error.ts`).
 */
export interface RateLimitStore {
  consume(
    key: string,
    policy: RateLimitPolicy,
    now: number,
    usage?: UsageHit,
  ): Promise<RateLimitDecision>;
  /**
   * `consume`, answered at once: only for a store whose state lives in this process (memory), so
   * that verifying a request spends no promise on the rate limit. Same decision, same state change
   * as `consume`. A store that does I/O leaves it out.
   */
  consumeNow?(
    key: string,
    policy: RateLimitPolicy,
    now: number,
    usage?: UsageHit,
  ): RateLimitDecision;
  readonly recordsUsage?: boolean;
  /**
   * With `recordsUsage`, the usage store that reads back what `consume` counts. Keyward must be
   * given this one as its `usage`, or usage is counted where nobody reads it; `combineStores`
   * checks it.
   */
  readonly usageStore?: UsageStore;
  /**
   * All layers of one request (`LimitLayer`: per key, shared per owner, quota, credits) in one
   * atomic step, all-or-nothing: when any layer refuses, no layer's state changes. With
   * `recordsUsage`, `usage` is counted in the same step (allowed or not), as with `consume`.
   * Keyward calls it only when a key has layers beyond its own rate limit; without it such a
   * configuration is refused at start. Decisions come back in the order of `layers`.
   */
  consumeLayers?(request: LayeredConsume): Promise<LayeredDecision>;
  /**
   * `consumeLayers`, answered at once, as `consumeNow` is for `consume`: only for a store whose
   * state lives in this process (memory). Same decisions, same state changes. A store that does
   * I/O leaves it out.
   */
  consumeLayersNow?(request: LayeredConsume): LayeredDecision;
  /** Where each layer stands at `now`, changing nothing: for usage reports. */
  readLayers?(request: LayeredRead): Promise<LayerDecision[]>;
  /**
   * What `consumeLayers` would decide now, changing nothing. A store that keeps the state of one
   * instance (memory) has it, so that quotas and credits on another store (`AllowanceStore`) are
   * spent only when the rate layers admit the request.
   */
  checkLayers?(request: LayeredRead): LayeredDecision;
  /**
   * True when every instance sees the same state (Redis): quotas and credits then stay in this
   * store, all layers in one step, even when an `AllowanceStore` is configured.
   */
  readonly shared?: boolean;
  /**
   * Writes credit states where a bucket has none (a state already there is left alone), for a
   * `consumeLayers` that answered `unseeded`: `state` is the durable balance (`AllowanceStore.loadCredits`),
   * or undefined when there is none, and the layer then starts from its grant. One owner's buckets.
   */
  seedCredits?(owner: string, seeds: readonly CreditSeed[]): Promise<void>;
  /**
   * True when `consumeLayers` applies a request's `increments` in its atomic step, only when the
   * request is admitted (`limits/counter-increments.ts`); a store without it ignores them.
   */
  readonly appliesIncrements?: boolean;
  /** An owner's counter as `increments` left it (fields by name), changing nothing. */
  readCounter?(owner: string, counter: string, now: number): Promise<Record<string, number>>;
}

/** A credit bucket's state to seed a shared store with: `[grantedAt, balance, refilledAt]`, or none. */
export interface CreditSeed {
  bucket: string;
  state: readonly number[] | undefined;
}

/** One request's layers, for `consumeLayers`. */
export interface LayeredConsume {
  /**
   * Whose shared layers these are (`ownerLimitKey`): a store keeps one owner's state together, so
   * one step reaches all of it (Redis: one hash slot).
   */
  owner: string;
  layers: readonly LimitLayer[];
  now: number;
  usage?: UsageHit | undefined;
  /**
   * The credits' durable balance is kept by an `AllowanceStore`, not by this store alone: a credits
   * layer whose state this store does not hold at all (never seeded, or lost: a Redis flush, an
   * eviction, a failover) must not start from its grant. The store then decides nothing and changes
   * nothing for the request's layers, and answers `unseeded`; the caller seeds the state
   * (`seedCredits`) and asks again without `usage`, which was counted already.
   */
  durableCredits?: boolean | undefined;
  /**
   * A feature's counters to add to in the same step, only when every layer admits the request
   * (`limits/counter-increments.ts`), with a store that `appliesIncrements`. Kept in the owner's
   * state (one slot on a Redis Cluster).
   */
  increments?: readonly CounterIncrement[] | undefined;
}

export type LayeredRead = Omit<LayeredConsume, "usage" | "increments">;

/**
 * Quotas and credits kept exactly across instances by a store whose rate limits are not shared
 * (PostgreSQL, beside per-instance rate limits in memory). Only `quota` and `credits` layers reach it.
 *
 * Contract:
 * - `consume` is atomic and all-or-nothing over the layers given: either all are spent or none,
 *   and concurrent calls from any number of instances never admit more than a layer allows.
 * - `refund` undoes one admitted `consume` of the same layers (the rate layers refused it meanwhile).
 * - `read` changes nothing.
 */
export interface AllowanceStore {
  consume(request: LayeredRead): Promise<LayeredDecision>;
  refund(request: LayeredRead): Promise<void>;
  read(request: LayeredRead): Promise<LayerDecision[]>;
  /**
   * The durable balances of credits spent on a shared store (Redis), by bucket: what a state lost
   * there is seeded from. A bucket with no balance is absent.
   */
  loadCredits?(buckets: readonly string[]): Promise<Map<string, number[]>>;
  /**
   * Keeps credit states seen on a shared store, each `[grantedAt, balance, refilledAt]`, only where
   * it is newer than the one kept (`isNewerCredits`): a later grant, a later refill period, or a
   * lower balance in the same period. So writes from many instances in any order keep the latest.
   */
  saveCredits?(states: readonly CreditSeed[]): Promise<void>;
}
