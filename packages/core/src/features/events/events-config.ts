import type { OnEvent } from "./event-hook.js";

/** What `events()` takes: an event with every key change, kept a while. */
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
  /**
   * `key.expiring`: written once per key and expiry when a key that is not revoked comes within
   * `leadTimeMs` of its expiry (default 7 days). Each instance looks every `scanIntervalMs` (default
   * one hour; `false`: only when `keyward.events.scanExpiring()` is called, from a cron job or a
   * scheduled Worker). `false` turns `key.expiring` off. Needs a key store with `listExpiring`.
   */
  expiring?: ExpiringEventsConfig | false;
}

export interface ExpiringEventsConfig {
  /** How long before a key's expiry its `key.expiring` is written, in ms. Default 7 days. */
  leadTimeMs?: number;
  /** How often this instance looks for expiring keys, in ms; default one hour. `false`: never on a timer. */
  scanIntervalMs?: number | false;
}

export const defaultRetainDays = 90;
export const defaultPruneIntervalMs = 60 * 60 * 1000;
export const defaultExpiringLeadTimeMs = 7 * 24 * 60 * 60 * 1000;
export const defaultExpiryScanIntervalMs = 60 * 60 * 1000;
/** The most days `retainDays` takes: about 100 years, far inside what a Date holds. */
const maxRetainDays = 36_500;

/** Throws a `TypeError` naming the option for anything `events` should not be. */
export function checkEventsConfig(events: unknown): void {
  if (typeof events !== "object" || events === null || Array.isArray(events)) {
    throw new TypeError(
      "Keyward: events() takes an object like { retainDays: 90, onEvent(event) {} }",
    );
  }
  const { retainDays, onEvent, pruneIntervalMs, expiring } = events as EventsConfig;
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
  checkExpiringConfig(expiring);
}

function checkExpiringConfig(expiring: unknown): void {
  if (expiring === undefined || expiring === false) return;
  if (typeof expiring !== "object" || expiring === null || Array.isArray(expiring)) {
    throw new TypeError(
      "Keyward: `events.expiring` must be an object like { leadTimeMs, scanIntervalMs }, or false",
    );
  }
  const { leadTimeMs, scanIntervalMs } = expiring as ExpiringEventsConfig;
  if (leadTimeMs !== undefined && !(Number.isSafeInteger(leadTimeMs) && leadTimeMs > 0)) {
    throw new TypeError(
      `Keyward: \`events.expiring.leadTimeMs\` must be a positive whole number of ms, got ${JSON.stringify(leadTimeMs)}`,
    );
  }
  if (
    scanIntervalMs !== undefined &&
    scanIntervalMs !== false &&
    !(Number.isFinite(scanIntervalMs) && scanIntervalMs > 0)
  ) {
    throw new TypeError(
      `Keyward: \`events.expiring.scanIntervalMs\` must be a positive number of ms or false, got ${JSON.stringify(scanIntervalMs)}`,
    );
  }
}
