import type { Clock } from "../clock.js";
import type { RandomSource } from "../random.js";
import type { AppendedEvent, EventLog } from "../storage/event-log.js";
import type { StoredEvent } from "./event.js";
import { eventHook } from "./event-hook.js";
import { type EventRetention, eventRetention } from "./event-retention.js";
import { defaultPruneIntervalMs, defaultRetainDays, type EventsConfig } from "./events-config.js";
import { type KeyEventBuilder, keyEventBuilder } from "./key-events.js";

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
  retention: EventRetention;
  /** Told when events were committed, to deliver them soon (set when webhooks are configured). */
  onCommitted?: () => void;
}

export function eventsRuntime(
  config: EventsConfig,
  log: EventLog,
  options: {
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
    retention.start();
    if (hook && events.length > 0) hook(events);
    if (events.length > 0) runtime.onCommitted?.();
  };
  const runtime: EventsRuntime = {
    build: keyEventBuilder(options.random),
    log,
    committed,
    async append(entries) {
      const written = await log.append(entries, options.clock.now());
      committed(written);
      return written;
    },
    retention,
  };
  return runtime;
}
