import type { EventBus } from "../../bus/event-bus.js";
import type { Clock } from "../../clock.js";
import type { StoredEvent } from "../../event-model/event.js";
import type { EventRecorder } from "../../event-model/event-recorder.js";
import { keyEventBuilder } from "../../event-model/key-events.js";
import type { KeyField } from "../../keys/key-field.js";
import type { RandomSource } from "../../random.js";
import type { AppendedEvent, EventLog } from "../../storage/event-log.js";
import type { KeyStore } from "../../storage/key-store.js";
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

/** Events as one Keyward instance runs them, when `events()` is listed. */
export interface EventsRuntime extends EventRecorder {
  retention: EventRetention;
  /** `key.expiring`; undefined with `expiring: false`. */
  expiry: ExpiryScan | undefined;
}

export function eventsRuntime(
  config: EventsConfig,
  log: EventLog,
  options: {
    keys: KeyStore;
    /** The listed features' key fields: those with an event schema are written in events. */
    fields?: readonly KeyField[];
    /** Where each committed event is published, under its type. */
    bus?: EventBus;
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
    for (const event of events) options.bus?.publish(event.type, event);
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
    build: keyEventBuilder(options.random, options.fields ?? []),
    log,
    committed,
    append,
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
