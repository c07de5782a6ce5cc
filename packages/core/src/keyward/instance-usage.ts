/**
 * Usage as one instance counts it: the buffered recorder `verify` counts each use with, and, with
 * `usage.retainDays`, the background pruning of daily usage (started on first use).
 */
import type { Clock } from "../clock.js";
import { defaultUsagePruneIntervalMs } from "../usage/usage-config.js";
import { createUsageRecorder, type UsageRecorder } from "../usage/usage-recorder.js";
import { type UsageRetention, usageRetention } from "../usage/usage-retention.js";
import type { KeywardConfig } from "./config.js";

export function instanceUsage(
  config: Pick<KeywardConfig, "store" | "usage">,
  clock: Clock,
  reportFailure: (message: string, cause: unknown) => void,
): { usageRecorder: UsageRecorder; retention: UsageRetention | undefined } {
  const usageRecorder = createUsageRecorder(config.store.usage, {
    ...(config.usage?.flushIntervalMs === undefined
      ? {}
      : { flushIntervalMs: config.usage.flushIntervalMs }),
    ...(config.usage?.maxBuffered === undefined ? {} : { maxBuffered: config.usage.maxBuffered }),
    onError: (error: unknown) => reportFailure("writing usage failed; it will be retried", error),
  });
  const usageStore = config.store.usage;
  const retainDays = config.usage?.retainDays;
  // checkConfig made sure the store can prune when `retainDays` is set.
  const retention =
    retainDays === undefined || !usageStore.prune
      ? undefined
      : usageRetention({
          // Looked up on each run, not bound once: the store's method as it is then.
          prune: (beforeDay) => usageStore.prune!(beforeDay),
          clock,
          retainDays,
          intervalMs: config.usage?.pruneIntervalMs ?? defaultUsagePruneIntervalMs,
          onError: (error) => reportFailure("pruning usage history failed", error),
        });
  return { usageRecorder, retention };
}
