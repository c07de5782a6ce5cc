import type { SpendKernel, SpendStep } from "../auth/spend-steps.js";
import { crossedUsageEvents } from "./usage-events.js";

/**
 * The events feature at `verify`'s point "spent": writes the usage events a request crossed into
 * (`usage-events.ts`), without being awaited; a failure is reported, never the request's.
 */
export function usageEventsStep({ events, random, reportFailure }: SpendKernel): SpendStep {
  if (!events) throw new TypeError("Keyward: the usage events step needs the events feature's log");
  return {
    name: "usage-events",
    spent(key, owner, layers, decisions, now) {
      const crossed = crossedUsageEvents(key, owner, layers, decisions, now, random);
      if (!crossed) return;
      events
        .append(crossed)
        .catch((error) =>
          reportFailure(
            `writing ${crossed.map((entry) => entry.event.type).join(", ")} for key ${key.id} failed`,
            error,
          ),
        );
    },
  };
}
