import type { SpendStep } from "../../auth/spend-steps.js";
import { crossedUsageEvents } from "./usage-events.js";

/**
 * The events feature at `verify`'s phase "spent": writes the usage events a request crossed into
 * (`usage-events.ts`), without being awaited; a failure is reported, never the request's.
 */
export const usageEventsStep: SpendStep = {
  name: "usage-events",
  spent(spend, { events, random, reportFailure }) {
    // The events feature lists this step and builds the log it writes to: both or neither.
    if (events === undefined) return;
    const crossed = crossedUsageEvents(spend, random);
    if (!crossed) return;
    events
      .append(crossed)
      .catch((error) =>
        reportFailure(
          `writing ${crossed.map((entry) => entry.event.type).join(", ")} for key ${spend.key.id} failed`,
          error,
        ),
      );
  },
};
