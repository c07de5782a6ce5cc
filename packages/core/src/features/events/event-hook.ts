import { type KeywardEvent, type StoredEvent, toKeywardEvent } from "../../event-model/event.js";

/** What `events.onEvent` is: called once per event, after its change is committed. */
export type OnEvent = (event: KeywardEvent) => void | Promise<void>;

/**
 * Calls the host's hook for each event of a committed change, in order. It is not awaited: a slow
 * hook never holds a request up, and a throwing or rejecting one is reported (with the event's type
 * and id, nothing more) and never fails the change, which has happened.
 */
export function eventHook(
  onEvent: OnEvent,
  report: (message: string, cause: unknown) => void,
): (events: readonly StoredEvent[]) => void {
  return (events) => {
    for (const stored of events) {
      const event = toKeywardEvent(stored);
      const failed = (error: unknown) =>
        report(`the onEvent hook failed for ${event.type} ${event.id}`, error);
      try {
        const returned = onEvent(event);
        if (returned && typeof returned.then === "function") returned.then(undefined, failed);
      } catch (error) {
        failed(error);
      }
    }
  };
}
