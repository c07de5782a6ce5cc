/**
 * `@keyward/core/budgets`: budgets agents cannot overrun. Listed, a key's requests are also
 * charged to a budget per key and per owner by UTC period (day, week, month), in the same
 * all-or-nothing step as its rate limits, quota and credits; and `keyward.budgets.reserve` holds a
 * request's largest cost up front, for work whose cost is known only once it ran (LLM tokens, a
 * streamed answer), to be settled with what it really spent. See docs/budgets.md.
 *
 * @example
 * import { budgets } from "@keyward/core/budgets";
 * const keyward = createKeyward({ store, scopes, tiers, jwt, features: [
 *   budgets({ perKey: { limit: 100_000, period: "day" } }),
 * ] });
 * const reserved = await keyward.budgets.reserve(header, { scopes: ["completions:write"], route: "POST /completions", cost: 4096 });
 * if (reserved.ok) { …; await reserved.hold.settle(1234); }
 */
import type { ChargeRequest } from "../../auth/charge-steps.js";
import type { PendingVerify } from "../../auth/pending-verify.js";
import type { VerifyOptions } from "../../auth/principal.js";
import { periodicTask } from "../../background/periodic-task.js";
import type { EventBus } from "../../bus/event-bus.js";
import type { Clock } from "../../clock.js";
import type { KeywardFeature } from "../../feature-interface/feature.js";
import type { FeatureKernel } from "../../feature-interface/feature-kernel.js";
import type { KeyLimitPlan } from "../../limits/resolve-layers.js";
import { parseDuration } from "../../rate-limit/duration.js";
import { type BudgetSource, checkBudgetSource } from "./budget-config.js";
import { type BudgetEvent, budgetEventsStep, budgetEventTypes } from "./budget-events.js";
import { budgetField } from "./budget-field.js";
import { budgetChargeStep, type CreditsLayer } from "./budget-layers.js";
import { type BudgetUsage, budgetUsage } from "./budget-usage.js";
import { budgetsUsageSection } from "./budget-usage-section.js";
import { fillHold, heldIncrement } from "./hold-layer.js";
import { type HoldStore, memoryHoldStore, type StoredHold } from "./hold-store.js";
import {
  checkAmount,
  type HoldOutcome,
  holdsOf,
  type ReserveResult,
  type SettledHold,
} from "./holds.js";

export type { Budget, BudgetSource } from "./budget-config.js";
export type { BudgetEvent } from "./budget-events.js";
export type { BudgetPeriod } from "./budget-period.js";
export { budgetPeriodEnd, budgetPeriodStart } from "./budget-period.js";
export type { BudgetStanding, BudgetUsage } from "./budget-usage.js";
export type { BudgetStandingSection, BudgetsUsageSection } from "./budget-usage-section.js";
export { holdLayerBucket } from "./hold-layer.js";
export {
  type HoldLayerRecords,
  type HoldStore,
  memoryHoldStore,
  type StoredHold,
} from "./hold-store.js";
export {
  giveBackLayers,
  type Hold,
  type HoldOutcome,
  type ReserveResult,
  type SettledHold,
} from "./holds.js";
export { type SettlingStreamOptions, settlingStream } from "./settling-stream.js";

export interface BudgetsConfig {
  /** A budget for every key (`{ limit, period }`), or a function of the key; none by default. */
  perKey?: BudgetSource;
  /** A budget shared by every key of an owner, or a function of a key; none by default. */
  perOwner?: BudgetSource;
  /**
   * Where holds are kept: every instance must share them (`redisHoldStore`, `postgresHoldStore`).
   * Default: this process's memory, right for one instance only.
   */
  holds?: HoldStore;
  /** How long a hold lives unsettled before it is released by itself: ms or "10m" (the default). */
  holdTtl?: number | string;
  /** How often expired holds are looked for: ms or "30s" (the default); `false`: only when asked. */
  sweepInterval?: number | string | false;
  /** Percentages of a budget spent that `onEvent` hears once crossed; default `[80]`. */
  thresholds?: readonly number[];
  /**
   * Hears `budget.threshold` and `budget.exhausted`; they are also written to the key's audit log
   * when `events()` is listed (and so published on the instance's bus, delivered by `webhooks()`),
   * else published on the bus.
   */
  onEvent?: (event: BudgetEvent) => void;
  /** Hears what each hold spent once it ended, what a meter bills (also `budget.settled` on the bus). */
  onSettled?: (settled: SettledHold) => void;
}

/** `reserve`'s options: `verify`'s, with the hold's `cost` required. */
export interface ReserveOptions extends Omit<VerifyOptions, "cost" | "accept"> {
  /** What to hold: the most the request may spend (a whole number ≥ 0). */
  cost: number;
}

export interface BudgetsApi {
  /** Checks and limits the key as `verify` does, holding `cost`; API keys only. */
  reserve(
    authorization: string | null | undefined,
    options: ReserveOptions,
  ): Promise<ReserveResult>;
  /** Settles a hold by its id (from any instance): spends `actual`, gives back the rest. */
  settle(holdId: string, actual: number): Promise<HoldOutcome>;
  /** Gives a hold back whole, by its id. */
  release(holdId: string): Promise<HoldOutcome>;
  /** Releases every hold past its TTL now (the timer does it every `sweepInterval`). */
  releaseExpired(): Promise<number>;
  /** Where a key's budgets stand: held, spent and left in the current period. */
  usage(keyId: string): Promise<BudgetUsage | null>;
}

const defaultHoldTtl = "10m";
const defaultSweepInterval = "30s";

function duration(value: number | string, where: string): number {
  try {
    const ms = parseDuration(value);
    if (ms <= 0) throw new Error(`must be more than 0, got ${String(value)}`);
    return ms;
  } catch (error) {
    throw new TypeError(`budgets({ ${where} }): ${(error as Error).message}`);
  }
}

/** Throws a `TypeError` naming the field for a malformed `config`. */
export function budgets(config: BudgetsConfig = {}): KeywardFeature<"budgets", BudgetsApi> {
  if (typeof config !== "object" || config === null) {
    throw new TypeError("budgets(config): { perKey?, perOwner?, holds?, holdTtl?, … }");
  }
  const sources = {
    perKey: checkBudgetSource(config.perKey, "budgets({ perKey })"),
    perOwner: checkBudgetSource(config.perOwner, "budgets({ perOwner })"),
  };
  const ttlMs = duration(config.holdTtl ?? defaultHoldTtl, "holdTtl");
  const sweepMs =
    config.sweepInterval === false
      ? false
      : duration(config.sweepInterval ?? defaultSweepInterval, "sweepInterval");
  const thresholds = [...(config.thresholds ?? [80])];
  for (const percent of thresholds) {
    if (typeof percent !== "number" || !(percent > 0 && percent < 100)) {
      throw new TypeError(
        `budgets({ thresholds }): each is a percentage between 0 and 100, got ${String(percent)}`,
      );
    }
  }
  const store = config.holds ?? memoryHoldStore();

  // Set when the kernel is built: the instance's clock, its limiter and its verify.
  let kernel: FeatureKernel | undefined;
  let verify: PendingVerify | undefined;
  let bus: EventBus | undefined;
  const clock = (): Clock => kernel!.clock;
  let report = (_message: string, _cause: unknown) => {};

  // Each reservation in flight, by its options object (one per call): the plan it was charged
  // with, and its hold when kept as a layer (with the record's write, sent ahead of the charge).
  const reserving = new WeakMap<object, Reservation>();
  const chargeStep = budgetChargeStep(sources);

  const holds = holdsOf({
    store,
    limiter: () => kernel?.limits.layered,
    clock,
    ttlMs,
    newId: () => `hold_${crypto.randomUUID()}`,
    onSettled: (settled) => {
      // What a meter bills: `budget.settled` on the bus, and the host's own hook.
      bus?.publish("budget.settled", settled);
      config.onSettled?.(settled);
    },
    report: (message, cause) => report(message, cause),
  });

  const sweep = periodicTask({
    intervalMs: sweepMs,
    task: () => holds.releaseExpired(),
    onError: (error) => report("Keyward: releasing expired holds failed", error),
  });

  /**
   * A reservation's plan. With a store that keeps holds as layers, the hold is a layer of this
   * same step (`hold-layer.ts`), and its record is sent now, ahead of it: the limiter sends the
   * step at the end of this turn, so on one connection the record is written first.
   */
  const reservationPlan = (
    reservation: Reservation,
    plan: KeyLimitPlan,
    request: ChargeRequest,
  ): KeyLimitPlan => {
    // Planned once per reservation: a step asked again answers the same hold.
    if (reservation.charged) return reservation.charged;
    reservation.plan = plan;
    reservation.charged = plan;
    const asLayers = store.layered !== undefined && kernel?.limits.layered?.appliesIncrements;
    if (!asLayers || request.cost === 0) return plan;
    const layers = heldLayersOf(plan);
    if (layers.length === 0) return plan;
    const { key } = request;
    const taken = {
      keyId: key.id,
      ownerId: key.ownerId,
      owner: plan.owner,
      amount: request.cost,
      layers,
    };
    const hold = holds.open(taken, clock().now(), true) as StoredHold & { ownLayer: string };
    reservation.layerHold = hold;
    reservation.written = store.put(hold);
    // Awaited by `reserve` (or handed to `settleRefused`); never left unhandled.
    reservation.written.catch(() => {});
    reservation.charged = {
      ...plan,
      layers: [...(plan.layers ?? []), fillHold(hold.ownLayer, request.cost)],
      increments: [...(plan.increments ?? []), heldIncrement(key.id, request.cost)],
    };
    return reservation.charged;
  };

  /**
   * What becomes of a refused reservation's hold kept as a layer. Refused by a limit (the step
   * refused whole) or for its scopes (a step that takes no credits): nothing was put into its
   * layer, and its record goes. Answered 5xx (the store failed or timed out): the store undoes the
   * step, so its record stays for the sweep, which ends the hold at its TTL if the step stood after
   * all (a host that died before its undo landed); ending it now would race that undo. Refused
   * otherwise after its step: given back now.
   */
  const settleRefused = (
    hold: StoredHold & { ownLayer: string },
    written: Promise<void>,
    error: { code: string; status: number },
  ) => {
    if (emptyRefusals.has(error.code)) holds.forget(hold, written);
    else if (error.status < 500) holds.abandon(hold, written);
  };

  const api: BudgetsApi = {
    async reserve(authorization, options) {
      if (typeof options !== "object" || options === null) {
        throw new TypeError("Keyward: reserve(authorization, { scopes, route, cost })");
      }
      const cost = checkAmount(options.cost, "reserve's `cost`");
      if (!verify || !kernel) throw new TypeError("Keyward: budgets() is not installed");
      sweep.start();
      // A fresh object: the charge step knows this call by it.
      const ask: VerifyOptions & { accept: "api-key" } = { ...options, cost, accept: "api-key" };
      const reservation: Reservation = {};
      reserving.set(ask, reservation);
      let result: Awaited<ReturnType<PendingVerify>>;
      try {
        // One that throws (the store failed) leaves its record to the sweep, as a 5xx does.
        result = await verify(authorization, ask);
      } finally {
        reserving.delete(ask);
      }
      const { layerHold, written } = reservation;
      if (!result.ok) {
        if (layerHold && written) settleRefused(layerHold, written, result.error);
        return result;
      }
      if (result.principal.kind !== "key") {
        throw new TypeError("Keyward: reserve takes API keys only");
      }
      if (layerHold && written)
        return { ...result, hold: await holds.recorded(layerHold, written) };
      const plan = reservation.plan;
      const { keyId, owner } = result.principal;
      const taken = {
        keyId,
        ownerId: owner.id,
        owner: plan?.owner ?? "",
        amount: cost,
        layers: heldLayersOf(plan),
      };
      const hold = await holds.record(taken, clock().now());
      return { ...result, hold };
    },
    settle: async (holdId, actual) => holds.settle(checkId(holdId), actual),
    release: async (holdId) => holds.release(checkId(holdId)),
    releaseExpired: () => holds.releaseExpired(),
    async usage(keyId) {
      if (!kernel) throw new TypeError("Keyward: budgets() is not installed");
      const key = await kernel.store.keys.findById(checkId(keyId, "keyId"));
      if (!key) return null;
      return budgetUsage({ kernel, sources, store, key, now: kernel.clock.now() });
    },
  };

  return {
    name: "budgets",
    extends: {
      verify: {
        charge: [
          {
            name: "budget",
            plan(plan, request) {
              const next = chargeStep.plan(plan, request);
              const reservation = reserving.get(request.options);
              return reservation ? reservationPlan(reservation, next, request) : next;
            },
          },
        ],
        // Written to the audit log (or the bus) and told to `onEvent`, for the configured
        // budgets and a key's own (its `budget` field) alike.
        spent: [budgetEventsStep({ thresholds, bus: () => bus, onEvent: config.onEvent })],
      },
      // `budget: { limit, period }` on create and update: a key's own budget (budget-field.ts).
      fields: [budgetField],
    },
    // `budget.threshold` and `budget.exhausted` in the audit log; `budget.settled` on the bus.
    eventTypes: budgetEventTypes,
    install(installed) {
      kernel = installed;
      bus = installed.bus;
      // `reserve` is the instance's own verify, every phase (observers included), with `cost`.
      verify = installed.verify;
      report = installed.log.reportFailure;
      return {
        api,
        // `budgets` on the key's usage report: held, spent and left per budget.
        usage: [
          budgetsUsageSection((key, now) =>
            budgetUsage({ kernel: installed, sources, store, key, now }),
          ),
        ],
        async close() {
          sweep.close();
          await holds.settled();
          await store.close?.();
        },
      };
    },
  };
}

/** Refusals whose reservation put nothing into its hold's layer. */
const emptyRefusals = new Set<string>([
  "rate_limited",
  "quota_exceeded",
  "credits_exhausted",
  "insufficient_scope",
]);

/** What a reservation holds: its plan's credits and budgets, as charged. */
function heldLayersOf(plan: KeyLimitPlan | undefined): CreditsLayer[] {
  return (plan?.layers ?? []).filter(
    (layer): layer is CreditsLayer => layer.layer === "credits" && layer.cost > 0,
  );
}

interface Reservation {
  /** The plan the budgets' step made (without the hold's own layer). */
  plan?: KeyLimitPlan;
  /** The plan charged, the hold's layer included. */
  charged?: KeyLimitPlan;
  /** The hold, when kept as a layer, and its record's write. */
  layerHold?: StoredHold & { ownLayer: string };
  written?: Promise<void>;
}

function checkId(value: unknown, what = "holdId"): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 200) {
    throw new TypeError(`Keyward: ${what} must be a non-empty string, got ${String(value)}`);
  }
  return value;
}
