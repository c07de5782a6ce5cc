/**
 * Budget events, read off the decision `verify` already has (its phase "spent"): no store call.
 * A budget `crossed` a threshold when the request that spent past it is admitted (each admitted
 * request's decision comes from the store's one atomic step, so exactly one request crosses each
 * mark, on any number of instances); it is `exhausted` when nothing is left. Money given back by a
 * settle lifts the balance above a mark again, and a later spend crosses it again.
 *
 * Each is written to the key's audit log when `events()` is listed (the journal publishes it on
 * the bus once written, and `webhooks()` delivers it), else published on the bus as it would have
 * been written; `onEvent` hears it either way. The types are declared here, by the feature that
 * writes them (`budgetEventTypes`), so the kernel's event model names nothing of them.
 */
import { isoTime } from "../../api/key-record.js";
import type { SpendStep } from "../../auth/spend-steps.js";
import type { EventBus } from "../../bus/event-bus.js";
import type { StoredEvent } from "../../event-model/event.js";
import { systemActor } from "../../event-model/event-actor.js";
import { generateEventId } from "../../event-model/event-id.js";
import type { EventTypeDeclaration } from "../../event-model/event-types.js";
import type { StoredKey } from "../../storage/key-store.js";
import { isBudgetBucket } from "./budget-layers.js";

/** What `budget.threshold` and `budget.exhausted` carry in the audit log. */
interface BudgetEventData {
  scope: "key" | "owner";
  percent: number;
  limit: number;
  remaining: number;
  resetsAt: string | null;
}

declare module "../../event-model/event.js" {
  interface EventDataByType {
    /**
     * A budget of the key (`scope: "key"`) or of its owner (`"owner"`) was spent past `percent`
     * of its `limit` by a request of this key (`budgets({ thresholds })`); `resetsAt`: when the
     * period ends, null for a budget that never resets by itself.
     */
    "budget.threshold": BudgetEventData;
    /** The budget has nothing left (`percent` 100), by a request of this key. */
    "budget.exhausted": BudgetEventData;
  }
}

/** As the host's `onEvent` hears it. */
export interface BudgetEvent {
  type: "budget.threshold" | "budget.exhausted";
  /** Whose budget: the key's (configured, or its own `budget` field), or its owner's shared one. */
  scope: "key" | "owner";
  keyId: string;
  owner: string;
  /** The mark crossed, in percent of the limit spent (100 for `budget.exhausted`). */
  percent: number;
  limit: number;
  remaining: number;
  /** When the budget is whole again (epoch ms); 0 if never by itself. */
  resetsAt: number;
  at: number;
}

const count = { type: "integer", minimum: 0 };
const budgetData = {
  type: "object",
  properties: {
    scope: {
      enum: ["key", "owner"],
      description: "Whose budget: the key's own, or the one its owner's keys share",
    },
    percent: {
      ...count,
      description: "The mark crossed, in percent of the limit spent (100: exhausted)",
    },
    limit: count,
    remaining: { ...count, description: "What is left after the request that crossed it" },
    resetsAt: {
      anyOf: [{ type: "string", format: "date-time" }, { type: "null" }],
      description: "When the period ends and the budget is whole again; null: never by itself",
    },
  },
  required: ["scope", "percent", "limit", "remaining", "resetsAt"],
};

/** The types `budgets()` declares: two audited, and what a meter hears on the bus. */
export const budgetEventTypes: readonly EventTypeDeclaration[] = [
  {
    type: "budget.threshold",
    description:
      "A budget of the key or of its owner was spent past one of budgets({ thresholds }), by this key's request",
    audit: true,
    data: budgetData,
  },
  {
    type: "budget.exhausted",
    description: "A budget of the key or of its owner has nothing left, by this key's request",
    audit: true,
    data: budgetData,
  },
  {
    type: "budget.settled",
    description:
      "A hold ended (settled, released or expired), with what it spent: what a meter bills",
    // On the bus only: a hold's end is billing's business, not the key's history.
    audit: false,
    data: {
      type: "object",
      properties: {
        holdId: { type: "string" },
        keyId: { type: "string" },
        owner: { type: "string" },
        ownerId: { type: "string" },
        held: count,
        spent: count,
        at: { type: "integer", description: "When it ended, epoch ms" },
        how: { enum: ["settled", "released", "expired"] },
      },
      required: ["holdId", "keyId", "owner", "ownerId", "held", "spent", "at", "how"],
    },
  },
];

/** What the step tells and where: the host's hook, and the bus when no audit log is kept. */
export interface BudgetEventsParts {
  thresholds: readonly number[];
  /** The instance's bus, once installed. */
  bus(): EventBus | undefined;
  onEvent?: ((event: BudgetEvent) => void) | undefined;
}

export function budgetEventsStep(parts: BudgetEventsParts): SpendStep {
  const { thresholds, onEvent } = parts;
  return {
    name: "budget-events",
    spent({ key, owner, layers, decisions, now }, { events, random, reportFailure }) {
      for (let index = 0; index < layers.length; index++) {
        const layer = layers[index]!;
        if (layer.layer !== "credits" || !isBudgetBucket(layer.bucket) || layer.cost <= 0) continue;
        const decision = decisions[index]!;
        const limit = decision.limit;
        const after = decision.remaining;
        const before = after + layer.cost;
        const scope = layer.bucket.startsWith("budget:owner:") ? "owner" : "key";
        const tell = (type: BudgetEvent["type"], percent: number) => {
          const data = { scope, percent, limit, remaining: after } as const;
          const resetsAt = decision.reset > 0 ? isoTime(decision.reset) : null;
          const stored = auditEvent(
            key,
            { type, now, id: generateEventId(random) },
            {
              ...data,
              resetsAt,
            },
          );
          if (events) {
            events
              .append([{ event: stored }])
              .catch((error) => reportFailure(`writing ${type} for key ${key.id} failed`, error));
          } else {
            parts.bus()?.publish(type, stored);
          }
          try {
            onEvent?.({ type, keyId: key.id, owner, ...data, resetsAt: decision.reset, at: now });
          } catch (error) {
            reportFailure("Keyward: a budget event listener threw", error);
          }
        };
        for (const percent of thresholds) {
          const mark = limit - (limit * percent) / 100;
          if (before > mark && after <= mark && percent < 100) tell("budget.threshold", percent);
        }
        if (before > 0 && after === 0) tell("budget.exhausted", 100);
      }
    },
  };
}

function auditEvent(
  key: StoredKey,
  head: { type: BudgetEvent["type"]; now: number; id: string },
  data: BudgetEventData,
): StoredEvent {
  return {
    id: head.id,
    type: head.type,
    occurredAt: head.now,
    owner: { type: key.ownerType, id: key.ownerId },
    keyId: key.id,
    actor: systemActor,
    data,
  };
}
