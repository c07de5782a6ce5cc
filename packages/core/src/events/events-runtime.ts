import type { Clock } from "../clock.js";
import type { LayerDecision, LimitLayer } from "../limits/types.js";
import type { RandomSource } from "../random.js";
import type { AppendedEvent, EventLog } from "../storage/event-log.js";
import type { KeyStore, StoredKey } from "../storage/key-store.js";
import type { StoredEvent } from "./event.js";
import { eventHook } from "./event-hook.js";
import { type EventRetention, eventRetention } from "./event-retention.js";
import {
  defaultExpiringLeadTimeMs,
  defaultExpiryScanIntervalMs,
  defaultPruneIntervalMs,
  defaultRetainDays,
  type EventsConfig,
} from "./events-config.js";
import { type ExpiryScan, expiryScan } from "./expiry-scan.js";
import { type KeyEventBuilder, keyEventBuilder } from "./key-events.js";
import { crossedUsageEvents } from "./usage-events.js";

/** Events as one Keyward instance runs them, when `events` is configured. */
export interface EventsRuntime {
  build: KeyEventBuilder;
  /** The key store's events, to list. */
  log: EventLog;
  /** Told about every change's events once the change is committed: runs `onEvent`. */
  committed(events: readonly StoredEvent[]): void;
  /**
   * Writes events that go with no key change (time- and usage-based ones, leak reports), each
   * once-key at most once across instances, then tells `onEvent` about those written. Resolves
   * with them.
   */
  append(entries: readonly AppendedEvent[]): Promise<StoredEvent[]>;
  /**
   * After a request every layer admitted: appends the `quota.threshold` and `credits.exhausted`
   * events it crossed into, without being awaited (a failure is reported, never the request's).
   * Crossing nothing, it makes no store call.
   */
  usage(
    key: StoredKey,
    owner: string,
    layers: readonly LimitLayer[],
    decisions: readonly LayerDecision[],
    now: number,
  ): void;
  retention: EventRetention;
  /** `key.expiring`; undefined with `expiring: false`. */
  expiry: ExpiryScan | undefined;
  /** Starts the background timers (pruning, expiry scans) if they are not running. */
  start(): void;
  /** Stops them, and waits for an expiry scan still running. */
  close(): Promise<void>;
  /** Told when events were committed, to deliver them soon (set when webhooks are configured). */
  onCommitted?: () => void;
}

export function eventsRuntime(
  config: EventsConfig,
  log: EventLog,
  options: {
    keys: KeyStore;
    clock: Clock;
    random: RandomSource;
    reportFailure(message: string, cause: unknown): void;
  },
): EventsRuntime {
  const hook = config.onEvent && eventHook(config.onEvent, options.reportFailure);
  const retention = eventRetention({
    log,
    clock: options.clock,
    retainDays: config.retainDays ?? defaultRetainDays,
    intervalMs: config.pruneIntervalMs ?? defaultPruneIntervalMs,
    onError: (error) => options.reportFailure("pruning old events failed", error),
  });
  const committed = (events: readonly StoredEvent[]) => {
    start();
    if (hook && events.length > 0) hook(events);
    if (events.length > 0) runtime.onCommitted?.();
  };
  const append = async (entries: readonly AppendedEvent[]) => {
    const written = await log.append(entries, options.clock.now());
    committed(written);
    return written;
  };
  const expiring = config.expiring === false ? undefined : (config.expiring ?? {});
  const expiry =
    expiring &&
    expiryScan({
      keys: options.keys,
      append,
      clock: options.clock,
      random: options.random,
      leadTimeMs: expiring.leadTimeMs ?? defaultExpiringLeadTimeMs,
      intervalMs: expiring.scanIntervalMs ?? defaultExpiryScanIntervalMs,
      onError: (error) => options.reportFailure("looking for expiring keys failed", error),
    });
  const start = () => {
    retention.start();
    expiry?.start();
  };
  const runtime: EventsRuntime = {
    build: keyEventBuilder(options.random),
    log,
    committed,
    append,
    usage(key, owner, layers, decisions, now) {
      const crossed = crossedUsageEvents(key, owner, layers, decisions, now, options.random);
      if (!crossed) return;
      append(crossed).catch((error) =>
        options.reportFailure(
          `writing ${crossed.map((entry) => entry.event.type).join(", ")} for key ${key.id} failed`,
          error,
        ),
      );
    },
    retention,
    expiry,
    start,
    async close() {
      retention.close();
      await expiry?.close();
    },
  };
  return runtime;
}
