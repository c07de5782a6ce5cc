import { isLaterUse } from "../storage/usage-increments.js";
import type { UsageIncrement, UsageStore } from "../storage/usage-store.js";
import { splitRouteLabel } from "./route-label.js";
import { utcDayFormatter } from "./utc-day.js";

export interface UsageRecorderOptions {
  /** How often buffered counts are written; default 1000 ms. */
  flushIntervalMs?: number;
  /** Distinct (key, route, day) entries that trigger an early flush; default 10 000. */
  maxBuffered?: number;
  /** Told about a failed write; the counts stay buffered and are retried on the next flush. */
  onError?: (error: unknown) => void;
}

export interface UsageRecorder {
  /**
   * Counts one request by `keyId` on `routeLabel` (`"GET /profiles/:slug"`). Synchronous: it never
   * waits on storage.
   */
  record(keyId: string, routeLabel: string | undefined, now: number): void;
  /**
   * `record`, with the fields the request writes (`UsageIncrement.useFields`): of a row's
   * requests, the latest one's are kept.
   */
  recordWithFields(
    keyId: string,
    routeLabel: string | undefined,
    now: number,
    useFields: string,
  ): void;
  /** The UTC day (`YYYY-MM-DD`) usage at `now` is counted under. */
  dayOf(now: number): string;
  /** Writes everything buffered so far; resolves when the store has it. */
  flush(): Promise<void>;
  /** Final flush; stops the timer. */
  close(): Promise<void>;
}

interface Counter {
  count: number;
  lastUsedAt: number;
  /** Set only by `recordWithFields`: a counter of `record` alone never has these properties. */
  useFields?: string;
  useFieldsAt?: number;
}

/** day → key id → route label → counter */
type Buffer = Map<string, Map<string, Map<string, Counter>>>;

/**
 * Buffers usage in memory and writes it in batches, so verification never waits on storage.
 * Increments commute (see `UsageStore`), so batches can be merged, split and retried freely.
 * One interval timer per recorder (not per key), started on first use and unref'd so it never
 * keeps a Node process alive.
 */
export function createUsageRecorder(
  store: UsageStore,
  options: UsageRecorderOptions = {},
): UsageRecorder {
  const flushIntervalMs = options.flushIntervalMs ?? 1_000;
  const maxBuffered = options.maxBuffered ?? 10_000;
  const dayOf = utcDayFormatter();
  let buffer: Buffer = new Map();
  let buffered = 0;
  // The bucket of the day being counted, so the common case skips the day lookup.
  let currentDay = "";
  let currentBucket: Map<string, Map<string, Counter>> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  let closed = false;

  // The same merge as `mergeUsageIncrement` (counts summed, latest use kept; the latest use fields
  // in `addFields`, only for `recordWithFields`), written out because it runs on every verified
  // request: nested maps by day, key and label avoid joining a row key and allocating an increment
  // per request, which the shared helper would need.
  const counterFor = (day: string, keyId: string, label: string, at: number): Counter => {
    let bucket: Map<string, Map<string, Counter>> | undefined;
    if (day === currentDay && currentBucket) {
      bucket = currentBucket;
    } else {
      bucket = buffer.get(day);
      if (!bucket) {
        bucket = new Map();
        buffer.set(day, bucket);
      }
      currentDay = day;
      currentBucket = bucket;
    }
    let routes = bucket.get(keyId);
    if (!routes) {
      routes = new Map();
      bucket.set(keyId, routes);
    }
    let counter = routes.get(label);
    if (!counter) {
      counter = { count: 0, lastUsedAt: at };
      routes.set(label, counter);
      buffered += 1;
    }
    return counter;
  };

  /** Adds `count` uses, the latest at `lastUsedAt`, to `counter`. */
  const add = (counter: Counter, count: number, lastUsedAt: number): Counter => {
    counter.count += count;
    if (lastUsedAt > counter.lastUsedAt) counter.lastUsedAt = lastUsedAt;
    return counter;
  };

  /** Keeps `useFields`, written at `at`, on `counter` if they are the latest (`isLaterUse`). */
  const addFields = (counter: Counter, useFields: string, at: number) => {
    if (isLaterUse(at, useFields, counter.useFieldsAt, counter.useFields)) {
      counter.useFields = useFields;
      counter.useFieldsAt = at;
    }
  };

  const writeBatch = async () => {
    if (buffered === 0) return;
    const batch = buffer;
    buffer = new Map();
    buffered = 0;
    currentBucket = undefined;
    const increments: UsageIncrement[] = [];
    for (const [day, keys] of batch) {
      for (const [keyId, routes] of keys) {
        for (const [label, { count, lastUsedAt, useFields, useFieldsAt }] of routes) {
          const { method, route } = splitRouteLabel(label);
          increments.push(
            useFields === undefined
              ? { keyId, method, route, day, count, lastUsedAt }
              : {
                  keyId,
                  method,
                  route,
                  day,
                  count,
                  lastUsedAt,
                  useFields,
                  useFieldsAt: useFieldsAt!,
                },
          );
        }
      }
    }
    try {
      await store.record(increments);
    } catch (error) {
      // Put the counts back (merging with anything recorded meanwhile) and try again later.
      for (const [day, keys] of batch) {
        for (const [keyId, routes] of keys) {
          for (const [label, counter] of routes) {
            const kept = counterFor(day, keyId, label, counter.lastUsedAt);
            add(kept, counter.count, counter.lastUsedAt);
            if (counter.useFields !== undefined)
              addFields(kept, counter.useFields, counter.useFieldsAt!);
          }
        }
      }
      options.onError?.(error);
    }
  };

  // Flushes run one after another, so a slow store never sees overlapping batches from us.
  const flush = () => {
    inFlight = inFlight.then(writeBatch);
    return inFlight;
  };

  const startTimer = () => {
    timer = setInterval(() => void flush(), flushIntervalMs);
    (timer as { unref?: () => void }).unref?.();
  };

  return {
    record(keyId, routeLabel, now) {
      if (!timer && !closed) startTimer();
      add(counterFor(dayOf(now), keyId, routeLabel ?? "", now), 1, now);
      if (buffered >= maxBuffered) void flush();
    },
    recordWithFields(keyId, routeLabel, now, useFields) {
      if (!timer && !closed) startTimer();
      addFields(add(counterFor(dayOf(now), keyId, routeLabel ?? "", now), 1, now), useFields, now);
      if (buffered >= maxBuffered) void flush();
    },
    dayOf,
    flush,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
