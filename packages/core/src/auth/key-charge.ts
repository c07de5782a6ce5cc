/**
 * `verify`'s phases "charge" and "spent" for a found key that passed its checks: the limit layers
 * its request is charged to (the kernel's plan, then the listed charge steps'), applied in one store
 * step, the use counted, and the spend steps told what an admitted request spent. From here the key
 * is valid: every request made with it is limited and counted, whether or not it may call this
 * route, so probing routes it lacks the scope for is limited too.
 *
 * A key with only its tier's own rate limit (no overrides, no layered tier, no charge step listed)
 * takes one store call for one layer; any other goes through the layered limiter. Either answers at
 * once when its state is in this process's memory (`consumeNow`), without a promise.
 */

import { useFieldsEncoder } from "../keys/use-fields.js";
import type { KeywardContext } from "../keyward/context.js";
import { rateLayersOf } from "../limits/attempt-layers.js";
import type { CounterIncrement } from "../limits/counter-increments.js";
import { describedLayer, layeredHeaders, layerRefusal } from "../limits/layered-response.js";
import { limitNumberProblem } from "../limits/limit-number.js";
import { type KeyLimitPlan, ownKeyLayer, planKeyLimits } from "../limits/resolve-layers.js";
import type { LayeredDecision, LimitLayer } from "../limits/types.js";
import { bucketFor, type RateLimitBucket } from "../rate-limit/bucket.js";
import { rateLimitHeaders } from "../rate-limit/headers.js";
import type { RateLimitDecision, RateLimitPolicy } from "../rate-limit/types.js";
import type { StoredKey } from "../storage/key-store.js";
import type { LayeredConsume, UsageHit } from "../storage/rate-limit-store.js";
import { cachedRouteLabelSplitter } from "../usage/route-label.js";
import type { KeyAttempt } from "./key-attempt.js";
import type { KeyAdmission } from "./key-principal.js";
import { isPromise, type Pending } from "./pending-verify.js";
import type { VerifyResult } from "./principal.js";
import type { SpendKit } from "./spend-steps.js";
import type { ContinueWith } from "./verify-continuation.js";
import type { VerifyPhases } from "./verify-phases.js";
import { rateLimited } from "./verify-refusals.js";

/** What the charge is built with besides the context: the steps before and after it. */
export interface KeyChargeParts {
  phases: Pick<VerifyPhases, "charge" | "spent">;
  /** The scope check and principal, once the limits admitted the request. */
  admission: KeyAdmission;
  continueWith: ContinueWith;
  /** What the spend steps write with. */
  spendKit: SpendKit;
}

export type KeyCharge = (attempt: KeyAttempt) => Pending<VerifyResult>;

export function keyCharge(
  ctx: Pick<
    KeywardContext,
    | "tiers"
    | "rateLimits"
    | "layeredLimits"
    | "usageRecorder"
    | "ietfRateLimitHeaders"
    | "keyFields"
  >,
  { phases, admission, continueWith, spendKit }: KeyChargeParts,
): KeyCharge {
  const splitRoute = cachedRouteLabelSplitter();
  const chargeSteps = phases.charge;
  const spendSteps = phases.spent;
  // What a use writes beside its count (`KeyField.fromUse`); undefined when no field is written so.
  const useFieldsOf = useFieldsEncoder(ctx.keyFields);
  const ietf = ctx.ietfRateLimitHeaders;

  // Each key object's bucket name, built once. The store hands the same object out on every request
  // while it holds the key (a memory-store key, a cached one), and a name concatenated per request
  // would cost the memory rate limiter's Map a fresh string hash each time (about 0.13 µs, near
  // half the key's SHA-256). Weak: an entry goes with its key object.
  const buckets = new WeakMap<StoredKey, RateLimitBucket>();
  const bucketOf = (key: StoredKey): RateLimitBucket => {
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = bucketFor.key(key.id);
      buckets.set(key, bucket);
    }
    return bucket;
  };

  /** The usage to count inside the limiter's call, when the store does (else undefined). */
  const usageHit = ({ key, options, now }: KeyAttempt): UsageHit => {
    const { method, route } = splitRoute(options.route);
    const day = ctx.usageRecorder.dayOf(now);
    const useFields = useFieldsOf?.(options);
    if (useFields !== undefined) return { keyId: key.id, method, route, day, useFields };
    return { keyId: key.id, method, route, day };
  };

  /** Counts a use in Keyward's own buffer (the store did not count it with the limit). */
  const recordUse = ({ key, options, now }: KeyAttempt) => {
    // Without a field written by uses, exactly the call it always was: nothing else is looked at.
    if (useFieldsOf === undefined) return ctx.usageRecorder.record(key.id, options.route, now);
    const useFields = useFieldsOf(options);
    if (useFields === undefined) ctx.usageRecorder.record(key.id, options.route, now);
    else ctx.usageRecorder.recordWithFields(key.id, options.route, now, useFields);
  };

  /** One rate-limit layer (the key's own), with usage counted in the same store call if it can. */
  const limitOneLayer = (attempt: KeyAttempt, policy: RateLimitPolicy): Pending<VerifyResult> => {
    const store = ctx.rateLimits;
    const usage = store.recordsUsage ? usageHit(attempt) : undefined;
    const bucket = bucketOf(attempt.key);
    const decided = store.consumeNow
      ? store.consumeNow(bucket, policy, attempt.now, usage)
      : store.consume(bucket, policy, attempt.now, usage);
    // Decided now (the memory limiter): on at once, without the closure `continueWith` would need.
    if (!isPromise(decided)) return limited(attempt, policy, usage, decided);
    return continueWith(decided, (decision) => limited(attempt, policy, usage, decision));
  };

  /** The limiter's answer for one layer, counted, with its headers and the scope check. */
  const limited = (
    attempt: KeyAttempt,
    policy: RateLimitPolicy,
    usage: UsageHit | undefined,
    decision: RateLimitDecision,
  ): VerifyResult => {
    // Counted only once the limiter answered: a request that fails there is a 500, not a use.
    if (!usage) recordUse(attempt);
    const headers = rateLimitHeaders(decision, policy, {
      now: attempt.now,
      ietf,
      policyName: attempt.tier,
    });
    if (!decision.allowed) return rateLimited(decision, headers);
    return admission.admit(attempt, decision, headers);
  };

  /**
   * A key with layers beyond its own rate limit (owner, quota, credits, a charge step's): one
   * atomic store step, answered at once when every layer is in memory (`consumeNow`).
   */
  const limitLayers = (
    attempt: KeyAttempt,
    { owner, layers, increments }: ChargedLayers,
    missing: readonly string[] | undefined,
  ): Pending<VerifyResult> => {
    const limiter = ctx.layeredLimits;
    if (!limiter) {
      throw new TypeError(
        "Keyward: this key has layered limits, but the store's rate limits cannot apply them (`consumeLayers`)",
      );
    }
    // Built only when the limiter counts it; otherwise `limitedLayers` records the use itself.
    const usage = limiter.recordsUsage ? usageHit(attempt) : undefined;
    const request: LayeredConsume = { owner, layers, now: attempt.now, usage, increments };
    const decided = limiter.consumeNow ? limiter.consumeNow(request) : limiter.consume(request);
    return continueWith(decided, (layered) => limitedLayers(attempt, request, layered, missing));
  };

  /** The layers' answer, counted, with its headers, the spend steps and the scope check. */
  const limitedLayers = (
    attempt: KeyAttempt,
    { owner, layers, usage }: LayeredConsume,
    layered: LayeredDecision,
    missing: readonly string[] | undefined,
  ): VerifyResult => {
    const { key, now } = attempt;
    if (!usage) recordUse(attempt);
    const headers = layeredHeaders(layered, layers, { now, ietf, tier: attempt.tier });
    const decision = pickDecision(layered);
    if (!layered.allowed) {
      const error = layerRefusal(layered, layers, headers);
      return { ok: false, error, rateLimit: decision, headers };
    }
    // The phase "spent": only an admitted request spent anything (a threshold crossed, say).
    if (spendSteps.length > 0) {
      const spend = { key, owner, layers, decisions: layered.layers, now };
      for (const step of spendSteps) step.spent(spend, spendKit);
    }
    return admission.admit(attempt, decision, headers, missing);
  };

  return (attempt) => {
    const { key, tier } = attempt;
    if (key.limits == null && !ctx.tiers.layered && chargeSteps.length === 0) {
      return limitOneLayer(attempt, ctx.tiers.policy(tier));
    }
    const cost = attempt.cost;
    const costProblem = limitNumberProblem(cost, 0);
    if (costProblem !== null) {
      throw new TypeError(`Keyward: verify's \`cost\` ${costProblem}, got ${cost}`);
    }
    let plan = planKeyLimits(ctx.tiers, key, tier, cost);
    for (const step of chargeSteps) plan = step.plan(plan, attempt);
    const increments = incrementsOf(plan);
    if (!plan.layers && !increments) return limitOneLayer(attempt, plan.policy);
    const planned = plan.layers ?? ownLayerOf(attempt.key, plan);
    // A request refused for its scopes is not served: it counts against the rate layers (attempts)
    // but spends no quota or credits (what the owner pays for), and adds to no feature's counter.
    // The scopes are in the record, so this costs no store call; the 403 itself still comes after
    // the limiter, as on every path. Asked only when something is billed, and the answer carried on.
    const rateOnly = rateLayersOf(planned);
    const billed = rateOnly !== planned || increments !== undefined;
    const missing = billed ? admission.missingScopes(attempt) : undefined;
    const refused = missing !== undefined && missing.length > 0;
    const owner = plan.owner;
    if (refused) return limitLayers(attempt, { owner, layers: rateOnly }, missing);
    return limitLayers(attempt, { owner, layers: planned, increments }, missing);
  };
}

/** A request's layers and the counters riding them, as the limiter is asked. */
interface ChargedLayers {
  owner: string;
  layers: readonly LimitLayer[];
  increments?: readonly CounterIncrement[] | undefined;
}

/** The plan's increments when there are any and the limiter applies them, else undefined. */
function incrementsOf(plan: KeyLimitPlan): readonly CounterIncrement[] | undefined {
  return plan.increments !== undefined && plan.increments.length > 0 ? plan.increments : undefined;
}

// The key's own layer for a plan with increments only, built once per plan object (the charge
// step hands out the same plan for a record within a window): stores cache by the list's identity.
const ownLayers = new WeakMap<KeyLimitPlan, readonly LimitLayer[]>();
function ownLayerOf(key: StoredKey, plan: KeyLimitPlan): readonly LimitLayer[] {
  let layers = ownLayers.get(plan);
  if (layers === undefined) {
    layers = [ownKeyLayer(key, plan.policy)];
    ownLayers.set(plan, layers);
  }
  return layers;
}

/** The layer `X-RateLimit-*` describes, as the single decision `VerifyResult.rateLimit` holds. */
function pickDecision(layered: LayeredDecision): RateLimitDecision {
  const { limit, remaining, reset, retryAfter } = layered.layers[describedLayer(layered)]!;
  return { allowed: layered.allowed, limit, remaining, reset, retryAfter };
}
