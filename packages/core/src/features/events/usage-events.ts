/**
 * `quota.threshold` and `credits.exhausted`, read off the decision `verify` already has: no store
 * call unless a request crossed a threshold. Each consumed request moves a quota's count by exactly
 * one and gets its own count back from the atomic step, so exactly one request, on whichever
 * instance, sees each threshold reached; the once-keys (per owner, period and threshold; per key,
 * grant and refill period) keep a crossing seen twice (a request refunded after a race on
 * PostgreSQL's split path, then made again) from writing it twice.
 */
import { isoTime } from "../../api/key-record.js";
import type { Spend } from "../../auth/spend-steps.js";
import type { EventDataByType, StoredEvent } from "../../event-model/event.js";
import { systemActor } from "../../event-model/event-actor.js";
import { generateEventId } from "../../event-model/event-id.js";
import type { RandomSource } from "../../random.js";
import type { AppendedEvent } from "../../storage/event-log.js";
import type { StoredKey } from "../../storage/key-store.js";

const thresholds = [80, 100] as const;
/** How long a `credits.exhausted` marker of credits without a refill is kept: about a year. */
const noRefillHoldMs = 366 * 24 * 60 * 60 * 1000;

/** The count at which a quota of `limit` reaches `percent`: the first request at or past it. */
export function thresholdCount(limit: number, percent: number): number {
  return Math.ceil((limit * percent) / 100);
}

/**
 * The events a request admitted by every layer crosses into, with their once-keys; usually none,
 * and then nothing is allocated.
 *
 * @param spend what the request spent (`spend.owner` is the quota's owner)
 */
export function crossedUsageEvents(
  { key, owner, layers, decisions, now }: Spend,
  random: RandomSource,
): AppendedEvent[] | undefined {
  let crossed: AppendedEvent[] | undefined;
  for (let index = 0; index < layers.length; index++) {
    const layer = layers[index]!;
    if (layer.layer === "quota") {
      const decision = decisions[index]!;
      const used = decision.limit - decision.remaining;
      for (const threshold of thresholds) {
        if (used !== thresholdCount(decision.limit, threshold)) continue;
        crossed ??= [];
        crossed.push({
          event: usageEvent(
            key,
            { type: "quota.threshold", occurredAt: now, random },
            {
              threshold,
              limit: decision.limit,
              used,
              period: layer.period,
              resetsAt: isoTime(decision.reset),
            },
          ),
          // The period is named by its end as the store decided it: a store that steps quotas on
          // its own clock (Redis's TIME) and Keyward agree on it even when their clocks do not.
          once: {
            key: `quota.threshold:${owner}:${decision.reset}:${threshold}`,
            until: decision.reset,
          },
        });
      }
    } else if (layer.layer === "credits") {
      // Spending nothing (`cost: 0`) at a balance of 0 crosses nothing: the request that spent the
      // last credit already did.
      if (decisions[index]!.remaining !== 0 || layer.cost === 0) continue;
      const refill = layer.refill;
      // The refill period, named by its end as the store decided it (see quotas above).
      const reset = decisions[index]!.reset;
      crossed ??= [];
      crossed.push({
        event: usageEvent(
          key,
          { type: "credits.exhausted", occurredAt: now, random },
          {
            refillsAt: refill ? isoTime(reset) : null,
          },
        ),
        once: {
          key: `credits.exhausted:${key.id}:${layer.grantedAt}:${refill ? reset : 0}`,
          until: refill ? reset : now + noRefillHoldMs,
        },
      });
    }
  }
  return crossed;
}

/** A usage event about `key`: which, when, and the random source its id is drawn from. */
interface UsageEventHead<T> {
  type: T;
  occurredAt: number;
  random: RandomSource;
}

function usageEvent<T extends "quota.threshold" | "credits.exhausted">(
  key: StoredKey,
  { type, occurredAt, random }: UsageEventHead<T>,
  data: EventDataByType[T],
): StoredEvent {
  return {
    id: generateEventId(random),
    type,
    occurredAt,
    owner: { type: key.ownerType, id: key.ownerId },
    keyId: key.id,
    actor: systemActor,
    data,
  } as StoredEvent;
}
