import type { OnEvent } from "./event-hook.js";

/** `events` in `createKeyward`'s configuration: an event with every key change, kept a while. */
export interface EventsConfig {
  /** How many days events are kept; older ones are pruned in the background. Default 90. */
  retainDays?: number;
  /**
   * Called with each event once its change is committed, in the process that made the change. Not
   * awaited; a failure in it is logged and never fails the change. For work that must not be lost
   * if the process dies right after the change, read the audit log instead (or, later, webhooks).
   */
  onEvent?: OnEvent;
  /**
   * How often this instance prunes events older than `retainDays`, in ms; default one hour. The
   * first run is an interval after the instance first writes or reads events. `false`: never on a
   * timer; call `keyward.events.prune()` yourself (a cron job, a scheduled Worker).
   */
  pruneIntervalMs?: number | false;
}

export const defaultRetainDays = 90;
export const defaultPruneIntervalMs = 60 * 60 * 1000;
/** The most days `retainDays` takes: about 100 years, far inside what a Date holds. */
const maxRetainDays = 36_500;

/** Throws a `TypeError` naming the option for anything `events` should not be. */
export function checkEventsConfig(events: unknown, storeHasEvents: boolean): void {
  if (events === undefined || events === false) return;
  if (typeof events !== "object" || events === null || Array.isArray(events)) {
    throw new TypeError(
      "Keyward: `events` must be an object like { retainDays: 90, onEvent(event) {} }, or false",
    );
  }
  const { retainDays, onEvent, pruneIntervalMs } = events as EventsConfig;
  if (
    retainDays !== undefined &&
    !(Number.isInteger(retainDays) && retainDays >= 1 && retainDays <= maxRetainDays)
  ) {
    throw new TypeError(
      `Keyward: \`events.retainDays\` must be a whole number of days from 1 to ${maxRetainDays}, got ${JSON.stringify(retainDays)}`,
    );
  }
  if (onEvent !== undefined && typeof onEvent !== "function") {
    throw new TypeError(`Keyward: \`events.onEvent\` must be a function, got ${typeof onEvent}`);
  }
  if (
    pruneIntervalMs !== undefined &&
    pruneIntervalMs !== false &&
    !(Number.isFinite(pruneIntervalMs) && pruneIntervalMs > 0)
  ) {
    throw new TypeError(
      `Keyward: \`events.pruneIntervalMs\` must be a positive number of ms or false, got ${JSON.stringify(pruneIntervalMs)}`,
    );
  }
  if (!storeHasEvents) {
    throw new TypeError(
      "Keyward: `events` is configured, but the key store cannot write events together with its changes (its `keys` has no `events`). Use memoryStore(), postgresStore() or redisStore() for keys (with migrations applied), or remove `events`.",
    );
  }
}
